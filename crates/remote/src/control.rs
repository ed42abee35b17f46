//! The control plane (spawn): FlatBuffers `Envelope`s over a
//! `SOCK_SEQPACKET` unix socket, segment memfds by `SCM_RIGHTS`.
//!
//! Messages are decoded into owned [`Msg`] values right after the verifier
//! (`root_as_envelope`) accepted the bytes; nothing else touches the buffer.

use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{BorrowedFd, OwnedFd};

use flatbuffers::FlatBufferBuilder;
use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};

use crate::protocol as fb;
use crate::types::{FatalReason, RefuseReason};

/// Largest control message accepted.
pub const MAX_MESSAGE: usize = 64 << 10;
/// Most fds accepted with one message.
pub const MAX_FDS: usize = 8;

/// Link terms as carried in `Hello`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkTerms {
    pub cmd_bytes: u64,
    pub stage_bytes: u64,
    pub reply_bytes: u64,
    pub event_bytes: u64,
    pub max_reply_bytes: u64,
    pub adoption_tier: u32,
}

/// One decoded control message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Hello {
        abi_version: u32,
        catalogue_hash: u64,
        backend_kind: String,
        transport: String,
        link: LinkTerms,
        segment_count: u32,
    },
    Welcome {
        abi_version: u32,
        segments: Vec<(u8, u64)>,
        reply_slots: u32,
        backend_name: String,
    },
    CapsSnapshot(Vec<u8>),
    SurfaceOp {
        op: u8,
        surface: u64,
        width: u32,
        height: u32,
    },
    SurfaceReply {
        surface: u64,
        ok: bool,
        refuse: RefuseReason,
        detail: String,
    },
    Refuse {
        reason: RefuseReason,
        detail: String,
    },
    Fatal {
        reason: FatalReason,
        detail: String,
    },
    Goodbye,
}

impl Msg {
    pub fn name(&self) -> &'static str {
        match self {
            Msg::Hello { .. } => "Hello",
            Msg::Welcome { .. } => "Welcome",
            Msg::CapsSnapshot(_) => "CapsSnapshot",
            Msg::SurfaceOp { .. } => "SurfaceOp",
            Msg::SurfaceReply { .. } => "SurfaceReply",
            Msg::Refuse { .. } => "Refuse",
            Msg::Fatal { .. } => "Fatal",
            Msg::Goodbye => "Goodbye",
        }
    }
}

pub fn refuse_to_fb(r: RefuseReason) -> fb::RefuseReason {
    match r {
        RefuseReason::Unknown => fb::RefuseReason::Unknown,
        RefuseReason::AbiMismatch => fb::RefuseReason::AbiMismatch,
        RefuseReason::CatalogueMismatch => fb::RefuseReason::CatalogueMismatch,
        RefuseReason::BackendUnavailable => fb::RefuseReason::BackendUnavailable,
        RefuseReason::BadSegments => fb::RefuseReason::BadSegments,
        RefuseReason::UnsupportedTransport => fb::RefuseReason::UnsupportedTransport,
        RefuseReason::UnsupportedSurface => fb::RefuseReason::UnsupportedSurface,
        RefuseReason::BadMessage => fb::RefuseReason::BadMessage,
    }
}

pub fn refuse_from_fb(r: fb::RefuseReason) -> RefuseReason {
    match r {
        fb::RefuseReason::AbiMismatch => RefuseReason::AbiMismatch,
        fb::RefuseReason::CatalogueMismatch => RefuseReason::CatalogueMismatch,
        fb::RefuseReason::BackendUnavailable => RefuseReason::BackendUnavailable,
        fb::RefuseReason::BadSegments => RefuseReason::BadSegments,
        fb::RefuseReason::UnsupportedTransport => RefuseReason::UnsupportedTransport,
        fb::RefuseReason::UnsupportedSurface => RefuseReason::UnsupportedSurface,
        fb::RefuseReason::BadMessage => RefuseReason::BadMessage,
        _ => RefuseReason::Unknown,
    }
}

pub fn fatal_to_fb(r: FatalReason) -> fb::FatalReason {
    match r {
        FatalReason::ProtocolCorruption => fb::FatalReason::ProtocolCorruption,
        FatalReason::BackendPanic => fb::FatalReason::BackendPanic,
        FatalReason::BackendLost => fb::FatalReason::BackendLost,
        FatalReason::OutOfResources | FatalReason::RecordTooLarge => {
            fb::FatalReason::OutOfResources
        }
        FatalReason::Unknown => fb::FatalReason::Unknown,
    }
}

pub fn fatal_from_fb(r: fb::FatalReason) -> FatalReason {
    match r {
        fb::FatalReason::ProtocolCorruption => FatalReason::ProtocolCorruption,
        fb::FatalReason::BackendPanic => FatalReason::BackendPanic,
        fb::FatalReason::BackendLost => FatalReason::BackendLost,
        fb::FatalReason::OutOfResources => FatalReason::OutOfResources,
        _ => FatalReason::Unknown,
    }
}

/// Serialise one message as a finished `Envelope`.
pub fn encode(msg: &Msg) -> Vec<u8> {
    let mut b = FlatBufferBuilder::with_capacity(256);
    let (ty, off) = match msg {
        Msg::Hello {
            abi_version,
            catalogue_hash,
            backend_kind,
            transport,
            link,
            segment_count,
        } => {
            let backend_kind = b.create_string(backend_kind);
            let transport = b.create_string(transport);
            let link = fb::LinkTerms::create(
                &mut b,
                &fb::LinkTermsArgs {
                    cmd_bytes: link.cmd_bytes,
                    stage_bytes: link.stage_bytes,
                    reply_bytes: link.reply_bytes,
                    event_bytes: link.event_bytes,
                    max_reply_bytes: link.max_reply_bytes,
                    adoption_tier: link.adoption_tier,
                },
            );
            let o = fb::Hello::create(
                &mut b,
                &fb::HelloArgs {
                    abi_version: *abi_version,
                    catalogue_hash: *catalogue_hash,
                    backend_kind: Some(backend_kind),
                    transport: Some(transport),
                    link: Some(link),
                    segment_count: *segment_count,
                },
            );
            (fb::Message::Hello, o.as_union_value())
        }
        Msg::Welcome {
            abi_version,
            segments,
            reply_slots,
            backend_name,
        } => {
            let segs: Vec<fb::SegmentInfo> = segments
                .iter()
                .map(|&(k, s)| fb::SegmentInfo::new(fb::SegmentKind(k), s))
                .collect();
            let segs = b.create_vector(&segs);
            let name = b.create_string(backend_name);
            let o = fb::Welcome::create(
                &mut b,
                &fb::WelcomeArgs {
                    abi_version: *abi_version,
                    segments: Some(segs),
                    reply_slots: *reply_slots,
                    backend_name: Some(name),
                },
            );
            (fb::Message::Welcome, o.as_union_value())
        }
        Msg::CapsSnapshot(bytes) => {
            let v = b.create_vector(bytes);
            let o = fb::CapsSnapshot::create(&mut b, &fb::CapsSnapshotArgs { caps: Some(v) });
            (fb::Message::CapsSnapshot, o.as_union_value())
        }
        Msg::SurfaceOp {
            op,
            surface,
            width,
            height,
        } => {
            let o = fb::SurfaceOp::create(
                &mut b,
                &fb::SurfaceOpArgs {
                    op: fb::SurfaceOpKind(*op),
                    surface: *surface,
                    width: *width,
                    height: *height,
                },
            );
            (fb::Message::SurfaceOp, o.as_union_value())
        }
        Msg::SurfaceReply {
            surface,
            ok,
            refuse,
            detail,
        } => {
            let d = b.create_string(detail);
            let o = fb::SurfaceReply::create(
                &mut b,
                &fb::SurfaceReplyArgs {
                    surface: *surface,
                    ok: *ok,
                    refuse: refuse_to_fb(*refuse),
                    detail: Some(d),
                },
            );
            (fb::Message::SurfaceReply, o.as_union_value())
        }
        Msg::Refuse { reason, detail } => {
            let d = b.create_string(detail);
            let o = fb::Refuse::create(
                &mut b,
                &fb::RefuseArgs {
                    reason: refuse_to_fb(*reason),
                    detail: Some(d),
                },
            );
            (fb::Message::Refuse, o.as_union_value())
        }
        Msg::Fatal { reason, detail } => {
            let d = b.create_string(detail);
            let o = fb::Fatal::create(
                &mut b,
                &fb::FatalArgs {
                    reason: fatal_to_fb(*reason),
                    detail: Some(d),
                },
            );
            (fb::Message::Fatal, o.as_union_value())
        }
        Msg::Goodbye => {
            let o = fb::Goodbye::create(&mut b, &fb::GoodbyeArgs {});
            (fb::Message::Goodbye, o.as_union_value())
        }
    };
    let env = fb::Envelope::create(
        &mut b,
        &fb::EnvelopeArgs {
            message_type: ty,
            message: Some(off),
        },
    );
    fb::finish_envelope_buffer(&mut b, env);
    b.finished_data().to_vec()
}

/// Verify and decode one message.
pub fn decode(bytes: &[u8]) -> Result<Msg, String> {
    let env = fb::root_as_envelope(bytes)
        .map_err(|e| format!("envelope rejected by the verifier: {e}"))?;
    let s = |o: Option<&str>| o.unwrap_or_default().to_string();
    let m = match env.message_type() {
        fb::Message::Hello => {
            let h = env.message_as_hello().ok_or("Hello without a body")?;
            let l = h.link();
            Msg::Hello {
                abi_version: h.abi_version(),
                catalogue_hash: h.catalogue_hash(),
                backend_kind: s(h.backend_kind()),
                transport: s(h.transport()),
                link: LinkTerms {
                    cmd_bytes: l.map_or(0, |l| l.cmd_bytes()),
                    stage_bytes: l.map_or(0, |l| l.stage_bytes()),
                    reply_bytes: l.map_or(0, |l| l.reply_bytes()),
                    event_bytes: l.map_or(0, |l| l.event_bytes()),
                    max_reply_bytes: l.map_or(0, |l| l.max_reply_bytes()),
                    adoption_tier: l.map_or(0, |l| l.adoption_tier()),
                },
                segment_count: h.segment_count(),
            }
        }
        fb::Message::Welcome => {
            let w = env.message_as_welcome().ok_or("Welcome without a body")?;
            Msg::Welcome {
                abi_version: w.abi_version(),
                segments: w
                    .segments()
                    .map(|v| v.iter().map(|si| (si.kind().0, si.size())).collect())
                    .unwrap_or_default(),
                reply_slots: w.reply_slots(),
                backend_name: s(w.backend_name()),
            }
        }
        fb::Message::CapsSnapshot => {
            let c = env
                .message_as_caps_snapshot()
                .ok_or("CapsSnapshot without a body")?;
            Msg::CapsSnapshot(c.caps().map(|v| v.bytes().to_vec()).unwrap_or_default())
        }
        fb::Message::SurfaceOp => {
            let o = env
                .message_as_surface_op()
                .ok_or("SurfaceOp without a body")?;
            Msg::SurfaceOp {
                op: o.op().0,
                surface: o.surface(),
                width: o.width(),
                height: o.height(),
            }
        }
        fb::Message::SurfaceReply => {
            let r = env
                .message_as_surface_reply()
                .ok_or("SurfaceReply without a body")?;
            Msg::SurfaceReply {
                surface: r.surface(),
                ok: r.ok(),
                refuse: refuse_from_fb(r.refuse()),
                detail: s(r.detail()),
            }
        }
        fb::Message::Refuse => {
            let r = env.message_as_refuse().ok_or("Refuse without a body")?;
            Msg::Refuse {
                reason: refuse_from_fb(r.reason()),
                detail: s(r.detail()),
            }
        }
        fb::Message::Fatal => {
            let f = env.message_as_fatal().ok_or("Fatal without a body")?;
            Msg::Fatal {
                reason: fatal_from_fb(f.reason()),
                detail: s(f.detail()),
            }
        }
        fb::Message::Goodbye => Msg::Goodbye,
        other => return Err(format!("unknown message type {}", other.0)),
    };
    Ok(m)
}

/// Send one message, with `fds` attached by `SCM_RIGHTS` when not empty.
pub fn send(sock: BorrowedFd<'_>, msg: &Msg, fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
    let bytes = encode(msg);
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut anc = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && (fds.len() > MAX_FDS || !anc.push(SendAncillaryMessage::ScmRights(fds))) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "too many fds for one message",
        ));
    }
    let n = rustix::net::sendmsg(sock, &[IoSlice::new(&bytes)], &mut anc, SendFlags::NOSIGNAL)?;
    if n != bytes.len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::WriteZero,
            "short control message send",
        ));
    }
    Ok(())
}

/// What one receive produced.
pub enum Received {
    Msg(Msg, Vec<OwnedFd>),
    /// The peer closed its end (orderly or by dying).
    HangUp,
}

/// Receive one message (blocking), with any attached fds (close-on-exec).
/// A malformed or truncated message is an error naming why.
pub fn recv(sock: BorrowedFd<'_>) -> std::io::Result<Result<Received, String>> {
    let mut buf = vec![0u8; MAX_MESSAGE];
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut anc = RecvAncillaryBuffer::new(&mut space);
    let r = loop {
        match rustix::net::recvmsg(
            sock,
            &mut [IoSliceMut::new(&mut buf)],
            &mut anc,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for m in anc.drain() {
        if let RecvAncillaryMessage::ScmRights(it) = m {
            fds.extend(it);
        }
    }
    if r.bytes == 0 && fds.is_empty() {
        return Ok(Ok(Received::HangUp));
    }
    if r.flags.contains(rustix::net::ReturnFlags::TRUNC)
        || r.flags.contains(rustix::net::ReturnFlags::CTRUNC)
    {
        return Ok(Err("control message truncated".into()));
    }
    Ok(decode(&buf[..r.bytes]).map(|m| Received::Msg(m, fds)))
}

/// `socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC)`.
pub fn socketpair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::net::socketpair(
        rustix::net::AddressFamily::UNIX,
        rustix::net::SocketType::SEQPACKET,
        rustix::net::SocketFlags::CLOEXEC,
        None,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    fn b(fd: &impl AsFd) -> BorrowedFd<'_> {
        fd.as_fd()
    }

    #[test]
    fn every_message_round_trips() {
        let msgs = vec![
            Msg::Hello {
                abi_version: 1,
                catalogue_hash: 0xdead_beef_1234,
                backend_kind: "gles".into(),
                transport: "spawn".into(),
                link: LinkTerms {
                    cmd_bytes: 1,
                    stage_bytes: 2,
                    reply_bytes: 3,
                    event_bytes: 4,
                    max_reply_bytes: 5,
                    adoption_tier: 6,
                },
                segment_count: 4,
            },
            Msg::Welcome {
                abi_version: 1,
                segments: vec![(0, 10), (3, 40)],
                reply_slots: 1,
                backend_name: "x".into(),
            },
            Msg::CapsSnapshot(vec![1, 2, 3]),
            Msg::SurfaceOp {
                op: 1,
                surface: 7,
                width: 2,
                height: 3,
            },
            Msg::SurfaceReply {
                surface: 7,
                ok: false,
                refuse: RefuseReason::UnsupportedSurface,
                detail: "d".into(),
            },
            Msg::Refuse {
                reason: RefuseReason::CatalogueMismatch,
                detail: "hash".into(),
            },
            Msg::Fatal {
                reason: FatalReason::ProtocolCorruption,
                detail: "bad".into(),
            },
            Msg::Goodbye,
        ];
        for m in msgs {
            assert_eq!(decode(&encode(&m)).unwrap(), m);
        }
        assert!(decode(&[1, 2, 3]).is_err());
        assert!(decode(&[0xff; 64]).is_err());
    }

    #[test]
    fn fds_travel_with_a_message() {
        let (a, b2) = socketpair().unwrap();
        let memfd = rustix::fs::memfd_create("t", rustix::fs::MemfdFlags::CLOEXEC).unwrap();
        send(b(&a), &Msg::Goodbye, &[memfd.as_fd()]).unwrap();
        match recv(b(&b2)).unwrap().unwrap() {
            Received::Msg(Msg::Goodbye, fds) => assert_eq!(fds.len(), 1),
            _ => panic!("expected Goodbye with one fd"),
        }
        drop(a);
        assert!(matches!(recv(b(&b2)).unwrap().unwrap(), Received::HangUp));
    }
}
