//! Read-backs written by the device straight into the caller's memory
//! (`VK_EXT_external_memory_host`).
//!
//! Why: a `glReadPixels` otherwise goes image → our read-back buffer →
//! `memcpy` into the destination (the application's memory in `monolith`,
//! the REPLY area in the ring transports). On lavapipe the copy out of the
//! image already is a `memcpy` on the device's thread, so the second one is
//! pure overhead on the calling thread: perf of `monolith+vulkan`
//! `readback` (256×256 RGBA8) put it at a tenth of all samples, on the
//! critical path after the wait. Importing the destination's pages as a
//! buffer lets the one device copy land where the bytes are wanted.
//!
//! Applies on CPU devices by default (lavapipe: an import is a pointer,
//! nothing is pinned); `MOBILEGL_VK_HOST_IMPORT=1|0` forces it on or off
//! (on real GPUs an import pins pages, which may cost more than the copy).
//!
//! Owns: one imported buffer per read, destroyed as soon as the submission
//! that writes it completed; never outlives the call that handed the
//! memory in. Must never write outside the caller's range: an import is
//! rounded out to whole pages, and the bytes around the range on those
//! pages are never touched.

use ash::vk;

use crate::device::{Gpu, RawBuffer};

/// The smallest page size of the platforms we run on (x86-64, AArch64).
const MIN_PAGE_SIZE: u64 = 4096;

/// The extension's entry point and the device's import granularity.
pub(crate) struct HostImport {
    ext: ash::ext::external_memory_host::Device,
    /// minImportedHostPointerAlignment (a power of two by the spec).
    align: u64,
}

/// A buffer over imported host pages and where the caller's bytes start.
pub(crate) struct ImportedBuffer {
    pub raw: RawBuffer,
    /// Offset of the caller's first byte inside `raw`.
    pub offset: u64,
}

impl HostImport {
    pub(crate) fn new(
        instance: &ash::Instance,
        pdev: vk::PhysicalDevice,
        device: &ash::Device,
    ) -> Option<HostImport> {
        let mut hp = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut hp);
        // SAFETY: a well-formed pNext chain of property structs (1.1 core query).
        unsafe { instance.get_physical_device_properties2(pdev, &mut p2) };
        let align = hp.min_imported_host_pointer_alignment;
        // Rounded out to `align`, an import covers only pages that hold a
        // byte of the destination (so mapped ones) when `align` is at most
        // the smallest page size; a coarser granularity could reach
        // memory the caller does not own: not used then.
        (align.is_power_of_two() && align <= MIN_PAGE_SIZE).then(|| HostImport {
            ext: ash::ext::external_memory_host::Device::new(instance, device),
            align,
        })
    }
}

impl Gpu {
    /// Import the pages holding `len` bytes at `ptr` as a transfer-target
    /// buffer; None when the device declines (unsupported pointer, no
    /// usable memory type): the caller takes its copying path.
    ///
    /// # Safety
    /// `ptr..ptr+len` stays valid memory of this process, and only the
    /// device writes it, until the returned buffer is destroyed; the caller
    /// destroys it once the work writing it completed.
    pub(crate) unsafe fn import_host(&self, ptr: *mut u8, len: usize) -> Option<ImportedBuffer> {
        let hi = self.host_import.as_ref()?;
        let a = hi.align;
        let start = ptr as u64;
        let base = start & !(a - 1);
        let end = start.checked_add(len as u64)?.checked_add(a - 1)? & !(a - 1);
        let size = end - base;
        let handle = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        // Same address as `ptr`, provenance kept for the driver.
        let base_ptr = ptr.wrapping_sub((start - base) as usize);
        let mut hpp = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: `base_ptr` is aligned to the import granularity and lies
        // in mapped memory (its page holds the caller's first byte).
        let r = unsafe {
            (hi.ext.fp().get_memory_host_pointer_properties_ext)(
                hi.ext.device(),
                handle,
                base_ptr.cast(),
                &mut hpp,
            )
        };
        if r != vk::Result::SUCCESS {
            return None;
        }
        let mut ext_ci = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
        let bci = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut ext_ci);
        // SAFETY: valid device and create info.
        let buffer = unsafe { self.device.create_buffer(&bci, None) }.ok()?;
        // SAFETY: `buffer` is a live buffer of this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let ty = self.memory_type(
            req.memory_type_bits & hpp.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        );
        let memory = ty.filter(|_| req.size <= size).and_then(|ty| {
            let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
                .handle_type(handle)
                .host_pointer(base_ptr.cast());
            let ai = vk::MemoryAllocateInfo::default()
                .allocation_size(size)
                .memory_type_index(ty)
                .push_next(&mut import);
            // SAFETY: the pointer and size are aligned to the import
            // granularity and the pages stay mapped (caller's contract).
            unsafe { self.device.allocate_memory(&ai, None) }.ok()
        });
        // SAFETY: fresh buffer and memory; the memory covers the buffer.
        let bound = memory.map(|m| unsafe { self.device.bind_buffer_memory(buffer, m, 0) });
        match (memory, bound) {
            (Some(memory), Some(Ok(()))) => Some(ImportedBuffer {
                raw: RawBuffer {
                    buffer,
                    memory,
                    ptr: std::ptr::null_mut(),
                    size,
                },
                offset: start - base,
            }),
            (memory, _) => {
                // SAFETY: created above, never used by any command.
                unsafe {
                    self.device.destroy_buffer(buffer, None);
                    if let Some(m) = memory {
                        self.device.free_memory(m, None);
                    }
                }
                None
            }
        }
    }
}
