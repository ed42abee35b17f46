//! `cargo xtask piglit`: run the public piglit list on a lane and compare it
//! with committed expectations, the way Mesa's `piglit-runner` (deqp-runner)
//! does: a baseline of expected non-pass results (`*-fails.txt`, skips
//! included) and flakes (`*-flakes.txt`); anything else is unexpected and
//! fails, including a listed failure that now passes (`UnexpectedPass`), so
//! the baseline stays tight. `--update` rewrites the baseline from the run.
//!
//! `cargo xtask piglit --report` regenerates `docs/CONFORMANCE.md` from the
//! result files present plus the shared native reference columns.

use mobilegl_tests::{group_alive, kill_group, lane_env, Lane};
use regex_automata::meta::Regex;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEFAULT_PIGLIT_ROOT: &str = "/usr/lib/x86_64-linux-gnu/piglit";
const DEFAULT_TIMEOUT_S: u64 = 30;

const USAGE: &str = "\
usage: cargo xtask piglit --lane <monolith|inproc|spawn|native> [options]
       cargo xtask piglit --report

options:
  --backend <gles|vulkan>  MOBILEGL_BACKEND for our lanes (default gles)
  --update                 rewrite tests/piglit/<stem>-fails.txt from this run
  --jobs N                 parallel tests (default: number of CPUs)
  --filter SUBSTR          only tests whose name contains SUBSTR
  --timeout SECS           per-test limit (default 30)
  --list PATH              test list (default ../shared/conformance/piglit-public.tsv)
  --no-rerun               do not re-run unexpected results to detect flakes
  --from-results           do not run: judge (or --update from) the last results
                           in target/piglit/<stem>.tsv
  --report                 regenerate docs/CONFORMANCE.md from target/piglit/*.tsv

environment: PIGLIT_ROOT (default /usr/lib/x86_64-linux-gnu/piglit),
             MOBILEGL_CONFORMANCE_DIR (default ../shared/conformance)";

/// A piglit result, plus our `Timeout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Pass,
    Fail,
    Skip,
    Warn,
    Crash,
    Timeout,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Warn,
        Status::Crash,
        Status::Timeout,
    ];

    /// The spelling used in results TSVs (piglit's, lower case).
    pub fn lower(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Warn => "warn",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
        }
    }

    /// The spelling used in expectation files (piglit-runner's).
    pub fn title(self) -> &'static str {
        match self {
            Status::Pass => "Pass",
            Status::Fail => "Fail",
            Status::Skip => "Skip",
            Status::Warn => "Warn",
            Status::Crash => "Crash",
            Status::Timeout => "Timeout",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        let s = s.trim().to_ascii_lowercase();
        Status::ALL.into_iter().find(|st| st.lower() == s)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

#[derive(Clone, Debug)]
struct TestCase {
    name: String,
    argv: Vec<String>,
}

#[derive(Clone, Debug)]
struct TestResult {
    status: Status,
    secs: f64,
    /// Processes of the test's group still alive after it exited.
    stragglers: bool,
}

struct Options {
    lane: Option<Lane>,
    backend: String,
    update: bool,
    jobs: usize,
    filter: Option<String>,
    timeout: Duration,
    list: Option<PathBuf>,
    rerun: bool,
    report: bool,
    from_results: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        lane: None,
        backend: "gles".into(),
        update: false,
        jobs: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2),
        filter: None,
        timeout: Duration::from_secs(DEFAULT_TIMEOUT_S),
        list: None,
        rerun: true,
        report: false,
        from_results: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| -> Result<String, String> {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{what} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--lane" => {
                let v = value("--lane")?;
                o.lane =
                    Some(Lane::parse(&v).ok_or_else(|| {
                        format!("unknown lane `{v}` (monolith|inproc|spawn|native)")
                    })?);
            }
            "--backend" => {
                o.backend = value("--backend")?;
                if !["gles", "vulkan"].contains(&o.backend.as_str()) {
                    return Err(format!("unknown backend `{}` (gles|vulkan)", o.backend));
                }
            }
            "--update" => o.update = true,
            "--jobs" | "-j" => {
                let v = value("--jobs")?;
                o.jobs = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("bad --jobs `{v}`"))?;
            }
            "--filter" => o.filter = Some(value("--filter")?),
            "--timeout" => {
                let v = value("--timeout")?;
                o.timeout = Duration::from_secs(
                    v.parse()
                        .map_err(|_| format!("bad --timeout `{v}` (seconds)"))?,
                );
            }
            "--list" => o.list = Some(PathBuf::from(value("--list")?)),
            "--no-rerun" => o.rerun = false,
            "--from-results" => o.from_results = true,
            "--report" => o.report = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if !o.report && o.lane.is_none() {
        return Err(format!("--lane is required\n{USAGE}"));
    }
    Ok(o)
}

fn root() -> PathBuf {
    mobilegl_tests::workspace_root()
}

fn conformance_dir() -> PathBuf {
    match std::env::var_os("MOBILEGL_CONFORMANCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => root().join("..").join("shared").join("conformance"),
    }
}

fn piglit_root() -> PathBuf {
    std::env::var_os("PIGLIT_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_PIGLIT_ROOT))
}

/// `<backend>-<lane>` for our lanes, `native-llvmpipe` for the system driver.
fn stem(lane: Lane, backend: &str) -> String {
    match lane {
        Lane::Native => "native-llvmpipe".to_string(),
        l => format!("{backend}-{}", l.name()),
    }
}

fn results_dir() -> PathBuf {
    mobilegl_tests::target_dir().join("piglit")
}

fn expectations_dir() -> PathBuf {
    root().join("tests").join("piglit")
}

fn read_list(path: &Path) -> Result<Vec<TestCase>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (name, json) = line
            .split_once('\t')
            .ok_or_else(|| format!("{}:{}: no TAB", path.display(), i + 1))?;
        let argv: Vec<String> = serde_json::from_str(json)
            .map_err(|e| format!("{}:{}: bad argv JSON: {e}", path.display(), i + 1))?;
        if argv.is_empty() {
            return Err(format!("{}:{}: empty argv", path.display(), i + 1));
        }
        out.push(TestCase {
            name: name.to_string(),
            argv,
        });
    }
    Ok(out)
}

/// Test name -> (status, seconds).
type Results = BTreeMap<String, (Status, f64)>;

/// Results TSV: `name<TAB>status<TAB>seconds`.
fn read_results(path: &Path) -> Result<Results, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("read {}: {e}", path.display()))?;
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split('\t');
        let (Some(name), Some(st)) = (f.next(), f.next()) else {
            return Err(format!(
                "{}:{}: want name<TAB>status",
                path.display(),
                i + 1
            ));
        };
        let st = Status::parse(st)
            .ok_or_else(|| format!("{}:{}: unknown status `{st}`", path.display(), i + 1))?;
        let secs = f.next().and_then(|s| s.trim().parse().ok()).unwrap_or(0.0);
        out.insert(name.to_string(), (st, secs));
    }
    Ok(out)
}

fn write_results(path: &Path, order: &[TestCase], res: &Results) -> Result<(), String> {
    let mut s = String::new();
    for t in order {
        if let Some((st, secs)) = res.get(&t.name) {
            s.push_str(&format!("{}\t{}\t{:.2}\n", t.name, st.lower(), secs));
        }
    }
    write_atomic(path, &s)
}

fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&tmp, text).map_err(|e| format!("write {}: {e}", tmp.display()))?;
    fs::rename(&tmp, path).map_err(|e| format!("rename {}: {e}", path.display()))
}

/// The committed baseline for one lane.
struct Expectations {
    fails: BTreeMap<String, Status>,
    flakes: Vec<(String, Option<Regex>)>,
}

impl Expectations {
    fn load(stem: &str) -> Result<Expectations, String> {
        let dir = expectations_dir();
        let fails_path = dir.join(format!("{stem}-fails.txt"));
        let flakes_path = dir.join(format!("{stem}-flakes.txt"));
        let mut fails = BTreeMap::new();
        if let Ok(text) = fs::read_to_string(&fails_path) {
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                // Test names may contain commas: the status is after the last.
                let (name, st) = line.rsplit_once(',').ok_or_else(|| {
                    format!("{}:{}: want `name,Status`", fails_path.display(), i + 1)
                })?;
                let st = Status::parse(st)
                    .filter(|s| *s != Status::Pass)
                    .ok_or_else(|| {
                        format!(
                            "{}:{}: status `{st}` is not one of Fail|Crash|Skip|Timeout|Warn",
                            fails_path.display(),
                            i + 1
                        )
                    })?;
                fails.insert(name.to_string(), st);
            }
        }
        let mut flakes = Vec::new();
        if let Ok(text) = fs::read_to_string(&flakes_path) {
            for line in text.lines() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let re = Regex::new(&format!("^(?:{line})$")).ok();
                flakes.push((line.to_string(), re));
            }
        }
        Ok(Expectations { fails, flakes })
    }

    fn expected(&self, name: &str) -> Status {
        self.fails.get(name).copied().unwrap_or(Status::Pass)
    }

    fn is_flaky(&self, name: &str) -> bool {
        self.flakes
            .iter()
            .any(|(lit, re)| lit == name || re.as_ref().is_some_and(|r| r.is_match(name)))
    }
}

/// Classify a finished run the way piglit's framework does: a signal is a
/// crash, a missing result line is a crash, `pass` with a non-zero exit is a
/// warning.
fn classify(output: &str, code: Option<i32>, signal: Option<i32>) -> Status {
    if signal.is_some() {
        return Status::Crash;
    }
    let mut result = None;
    for line in output.lines() {
        let Some(i) = line.find("PIGLIT: ") else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line[i + 8..]) else {
            continue;
        };
        if let Some(r) = v.get("result").and_then(|r| r.as_str()) {
            result = Status::parse(r);
        }
    }
    match (result, code) {
        (None, _) => Status::Crash,
        (Some(Status::Pass), Some(c)) if c != 0 => Status::Warn,
        (Some(Status::Skip), Some(c)) if c != 0 => Status::Fail,
        (Some(r), _) => r,
    }
}

fn log_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "@._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        + ".log"
}

struct Runner {
    piglit: PathBuf,
    env_set: Vec<(String, String)>,
    env_remove: Vec<String>,
    timeout: Duration,
    log_dir: PathBuf,
}

impl Runner {
    fn run_one(&self, t: &TestCase) -> TestResult {
        let start = Instant::now();
        let log_path = self.log_dir.join(log_name(&t.name));
        let spawn = || -> std::io::Result<std::process::Child> {
            let log = fs::File::create(&log_path)?;
            let log2 = log.try_clone()?;
            let mut cmd = Command::new(self.piglit.join("bin").join(&t.argv[0]));
            cmd.args(&t.argv[1..])
                .current_dir(&self.piglit)
                .stdin(Stdio::null())
                .stdout(log)
                .stderr(log2)
                .process_group(0)
                .env("PIGLIT_PLATFORM", "surfaceless_egl")
                .env("PIGLIT_SOURCE_DIR", &self.piglit);
            for k in &self.env_remove {
                cmd.env_remove(k);
            }
            for (k, v) in &self.env_set {
                cmd.env(k, v);
            }
            cmd.spawn()
        };
        let mut child = match spawn() {
            Ok(c) => c,
            Err(e) => {
                let _ = fs::write(&log_path, format!("xtask: cannot start the test: {e}\n"));
                return TestResult {
                    status: Status::Crash,
                    secs: 0.0,
                    stragglers: false,
                };
            }
        };
        let pid = child.id();
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) => {}
                Err(_) => break None,
            }
            if start.elapsed() > self.timeout {
                timed_out = true;
                kill_group(pid);
                break child.wait().ok();
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let secs = start.elapsed().as_secs_f64();
        // Give anything the test left in its group (e.g. a server child) a
        // moment to go by itself, then kill what remains (and say so: a
        // server should notice the hang-up at once).
        let mut stragglers = false;
        if !timed_out {
            let deadline = Instant::now() + Duration::from_millis(250);
            while group_alive(pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            stragglers = group_alive(pid);
        }
        kill_group(pid);
        let output = fs::read(&log_path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let status = if timed_out {
            Status::Timeout
        } else {
            match status {
                Some(st) => classify(&output, st.code(), st.signal()),
                None => Status::Crash,
            }
        };
        TestResult {
            status,
            secs,
            stragglers,
        }
    }

    fn run_all(&self, tests: &[TestCase], jobs: usize, label: &str) -> Vec<TestResult> {
        let next = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicUsize::new(0));
        let results: Mutex<Vec<Option<TestResult>>> = Mutex::new(vec![None; tests.len()]);
        let total = tests.len();
        let step = (total / 10).max(25);
        let start = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..jobs.min(total.max(1)) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let r = self.run_one(&tests[i]);
                    results.lock().unwrap()[i] = Some(r);
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    #[allow(clippy::manual_is_multiple_of)] // MSRV 1.80
                    let report = d == total || d % step == 0;
                    if report {
                        eprintln!(
                            "piglit {label}: {d}/{total} ({:.0}s)",
                            start.elapsed().as_secs_f64()
                        );
                    }
                });
            }
        });
        results
            .into_inner()
            .unwrap()
            .into_iter()
            .map(|r| r.expect("every test ran"))
            .collect()
    }
}

/// How one result compares with the baseline.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Expected,
    /// Listed as flaky; any result is accepted.
    Flake,
    /// Unexpected the first time, expected on a re-run.
    RerunFlake(Status),
    UnexpectedPass(Status),
    Unexpected {
        got: Status,
        want: Status,
    },
}

fn judge(exp: &Expectations, name: &str, got: Status) -> Verdict {
    let want = exp.expected(name);
    if got == want {
        Verdict::Expected
    } else if exp.is_flaky(name) {
        Verdict::Flake
    } else if got == Status::Pass {
        Verdict::UnexpectedPass(want)
    } else {
        Verdict::Unexpected { got, want }
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let o = parse_args(args)?;
    if o.report {
        return report();
    }
    let lane = o.lane.expect("checked in parse_args");
    run_lane(lane, &o)
}

/// Run one lane; `Ok` only if there is nothing unexpected (or `--update`).
pub fn run_lane_args(lane: Lane, backend: &str, jobs: Option<usize>) -> Result<(), String> {
    let mut args = vec![
        "--lane".to_string(),
        lane.name().to_string(),
        "--backend".to_string(),
        backend.to_string(),
    ];
    if let Some(j) = jobs {
        args.push("--jobs".into());
        args.push(j.to_string());
    }
    run(&args)
}

fn run_lane(lane: Lane, o: &Options) -> Result<(), String> {
    let piglit = piglit_root();
    if !piglit.join("bin").is_dir() {
        return Err(format!(
            "piglit is not installed at {} (Debian: apt-get install piglit; or set PIGLIT_ROOT)",
            piglit.display()
        ));
    }
    let list_path = o
        .list
        .clone()
        .unwrap_or_else(|| conformance_dir().join("piglit-public.tsv"));
    let all = read_list(&list_path)?;
    let tests: Vec<TestCase> = match &o.filter {
        Some(f) => all.iter().filter(|t| t.name.contains(f)).cloned().collect(),
        None => all.clone(),
    };
    if tests.is_empty() {
        return Err("no test matches the filter".into());
    }
    let stem = stem(lane, &o.backend);
    let (mut env_set, env_remove) = lane_env(lane)?;
    if lane != Lane::Native {
        env_set.push(("MOBILEGL_BACKEND".into(), o.backend.clone()));
    }
    let exp = Expectations::load(&stem)?;
    let log_dir = results_dir().join("logs").join(&stem);
    fs::create_dir_all(&log_dir).map_err(|e| format!("create {}: {e}", log_dir.display()))?;
    let runner = Runner {
        piglit,
        env_set,
        env_remove,
        timeout: o.timeout,
        log_dir: log_dir.clone(),
    };

    let start = Instant::now();
    let results_path = results_dir().join(format!("{stem}.tsv"));
    let (tests, results) = if o.from_results {
        let last = read_results(&results_path)?;
        let tests: Vec<TestCase> = tests
            .into_iter()
            .filter(|t| last.contains_key(&t.name))
            .collect();
        let results = tests
            .iter()
            .map(|t| TestResult {
                status: last[&t.name].0,
                secs: last[&t.name].1,
                stragglers: false,
            })
            .collect::<Vec<_>>();
        eprintln!(
            "piglit {stem}: {} results read from {} (nothing run)",
            tests.len(),
            results_path.display()
        );
        (tests, results)
    } else {
        eprintln!(
            "piglit {stem}: {} tests from {}, {} jobs, {}s timeout",
            tests.len(),
            list_path.display(),
            o.jobs,
            o.timeout.as_secs()
        );
        let results = runner.run_all(&tests, o.jobs, &stem);
        // Merge into the results TSV (a filtered run replaces only its tests).
        let mut merged = if o.filter.is_some() {
            read_results(&results_path).unwrap_or_default()
        } else {
            BTreeMap::new()
        };
        for (t, r) in tests.iter().zip(&results) {
            merged.insert(t.name.clone(), (r.status, r.secs));
        }
        write_results(&results_path, &all, &merged)?;
        (tests, results)
    };
    let wall = start.elapsed().as_secs_f64();

    let mut counts: BTreeMap<Status, usize> = BTreeMap::new();
    for r in &results {
        *counts.entry(r.status).or_default() += 1;
    }
    let stragglers: Vec<&str> = tests
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.stragglers)
        .map(|(t, _)| t.name.as_str())
        .collect();
    if !stragglers.is_empty() {
        eprintln!(
            "warning: {} tests left processes running 250 ms after they exited (killed), e.g. {}",
            stragglers.len(),
            stragglers[..stragglers.len().min(5)].join(", ")
        );
    }
    let breakdown = Status::ALL
        .iter()
        .map(|s| format!("{}={}", s.lower(), counts.get(s).copied().unwrap_or(0)))
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!("piglit {stem}: {breakdown} in {wall:.1}s wall");
    eprintln!("results: {}", results_path.display());
    eprintln!("logs:    {}", log_dir.display());

    if o.update {
        return update_baseline(&stem, &all, &tests, &results, &exp, &counts);
    }

    // Compare with the baseline.
    let mut verdicts: Vec<(usize, Verdict)> = tests
        .iter()
        .zip(&results)
        .enumerate()
        .map(|(i, (t, r))| (i, judge(&exp, &t.name, r.status)))
        .filter(|(_, v)| *v != Verdict::Expected)
        .collect();

    // Re-run the unexpected ones once: a result that matches the baseline on
    // the second try is a flake (reported, not failed).
    let rerun: Vec<usize> = verdicts
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Unexpected { .. } | Verdict::UnexpectedPass(_)))
        .map(|(i, _)| *i)
        .collect();
    if o.rerun && !o.from_results && !rerun.is_empty() && rerun.len() <= 100 {
        eprintln!("re-running {} unexpected results once", rerun.len());
        let again: Vec<TestCase> = rerun.iter().map(|&i| tests[i].clone()).collect();
        let second = runner.run_all(&again, o.jobs, &format!("{stem} re-run"));
        let by_index: HashMap<usize, Status> = rerun
            .iter()
            .zip(&second)
            .map(|(&i, r)| (i, r.status))
            .collect();
        for (i, v) in verdicts.iter_mut() {
            if let Some(&st) = by_index.get(i) {
                if st == exp.expected(&tests[*i].name) {
                    let first = match v {
                        Verdict::Unexpected { got, .. } => *got,
                        _ => Status::Pass,
                    };
                    *v = Verdict::RerunFlake(first);
                }
            }
        }
    }

    let mut unexpected = Vec::new();
    let mut flakes = Vec::new();
    for (i, v) in &verdicts {
        let name = &tests[*i].name;
        match v {
            Verdict::Expected => {}
            Verdict::Flake => flakes.push(format!("{name}: {} (listed flake)", results[*i].status)),
            Verdict::RerunFlake(first) => flakes.push(format!(
                "{name}: {first} then {} on re-run (consider {stem}-flakes.txt)",
                exp.expected(name)
            )),
            Verdict::UnexpectedPass(want) => {
                unexpected.push(format!("{name},UnexpectedPass (baseline says {want})"))
            }
            Verdict::Unexpected { got, want } => {
                unexpected.push(format!("{name},{got} (expected {want})"))
            }
        }
    }
    // Baseline entries the list no longer has.
    if o.filter.is_none() {
        let names: BTreeSet<&str> = all.iter().map(|t| t.name.as_str()).collect();
        let stale: Vec<&String> = exp
            .fails
            .keys()
            .filter(|n| !names.contains(n.as_str()))
            .collect();
        if !stale.is_empty() {
            eprintln!(
                "warning: {} baseline entries name tests that are not in the list, e.g. {}",
                stale.len(),
                stale[0]
            );
        }
    }
    if !flakes.is_empty() {
        eprintln!("flakes ({}):", flakes.len());
        for f in &flakes {
            eprintln!("  {f}");
        }
    }
    let passed = counts.get(&Status::Pass).copied().unwrap_or(0);
    if !unexpected.is_empty() {
        eprintln!("unexpected results ({}):", unexpected.len());
        for u in &unexpected {
            eprintln!("  {u}");
        }
        eprintln!(
            "(per-test output in {}; accept with `cargo xtask piglit {} --update`)",
            log_dir.display(),
            lane_args(&stem)
        );
    }
    println!(
        "piglit {stem}: {passed} passed, {} failed",
        unexpected.len()
    );
    if unexpected.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "piglit {stem}: {} unexpected results",
            unexpected.len()
        ))
    }
}

/// Rewrite `<stem>-fails.txt` from this run (entries for tests that did not
/// run — a `--filter` — are kept), and create an empty flakes file if none.
fn update_baseline(
    stem: &str,
    all: &[TestCase],
    ran: &[TestCase],
    results: &[TestResult],
    old: &Expectations,
    counts: &BTreeMap<Status, usize>,
) -> Result<(), String> {
    let ran_names: BTreeSet<&str> = ran.iter().map(|t| t.name.as_str()).collect();
    let listed: BTreeSet<&str> = all.iter().map(|t| t.name.as_str()).collect();
    let mut fails: BTreeMap<String, Status> = old
        .fails
        .iter()
        .filter(|(n, _)| !ran_names.contains(n.as_str()) && listed.contains(n.as_str()))
        .map(|(n, s)| (n.clone(), *s))
        .collect();
    for (t, r) in ran.iter().zip(results) {
        if r.status != Status::Pass && !old.is_flaky(&t.name) {
            fails.insert(t.name.clone(), r.status);
        }
    }
    let dir = expectations_dir();
    let fails_path = dir.join(format!("{stem}-fails.txt"));
    let mut text = format!(
        "# Expected non-pass piglit results for `{stem}` (piglit-runner baseline:\n\
         # `test,Fail|Crash|Skip|Timeout|Warn`). Anything else is unexpected, a listed\n\
         # test that passes included. Regenerate with\n\
         #   cargo xtask piglit {} --update\n",
        lane_args(stem)
    );
    for (n, s) in &fails {
        text.push_str(&format!("{n},{s}\n"));
    }
    write_atomic(&fails_path, &text)?;
    let flakes_path = dir.join(format!("{stem}-flakes.txt"));
    if !flakes_path.exists() {
        write_atomic(
            &flakes_path,
            &format!(
                "# Tests (exact names or regexes matching the whole name) whose result\n\
                 # on `{stem}` is not stable; any result is accepted for them.\n"
            ),
        )?;
    }
    let passed = counts.get(&Status::Pass).copied().unwrap_or(0);
    eprintln!(
        "updated {} ({} expected non-pass entries)",
        fails_path.display(),
        fails.len()
    );
    println!("piglit {stem}: {passed} passed, 0 failed (baseline updated)");
    Ok(())
}

fn lane_args(stem: &str) -> String {
    match stem.split_once('-') {
        Some(("native", _)) => "--lane native".into(),
        Some((backend, lane)) => format!("--lane {lane} --backend {backend}"),
        None => format!("--lane {stem}"),
    }
}

// ---- report ---------------------------------------------------------------

const REPORT_BEGIN: &str =
    "<!-- piglit-report:begin (generated by `cargo xtask piglit --report`; do not edit) -->";
const REPORT_END: &str = "<!-- piglit-report:end -->";
/// Areas with fewer tests than this are folded into a family row.
const SMALL_AREA: usize = 5;

/// `spec@arb_texture_float@...` -> `spec@arb_texture_float`; `shaders@x` -> `shaders`.
fn raw_area(name: &str) -> String {
    let parts: Vec<&str> = name.splitn(3, '@').collect();
    if parts.len() == 3 {
        format!("{}@{}", parts[0], parts[1])
    } else {
        parts[0].to_string()
    }
}

/// The family a small area is folded into.
fn family(area: &str) -> String {
    if let Some(rest) = area.strip_prefix("spec@") {
        if rest.starts_with("!opengl") || rest.starts_with("gl-") {
            "spec@!opengl (other versions)".into()
        } else if rest.starts_with("glsl-") {
            "spec@glsl (other versions)".into()
        } else {
            "spec@ (other extensions)".into()
        }
    } else {
        area.split('@').next().unwrap_or(area).to_string()
    }
}

/// Map every test name to its report row.
fn area_map(tests: &[TestCase]) -> HashMap<String, String> {
    let mut sizes: HashMap<String, usize> = HashMap::new();
    for t in tests {
        *sizes.entry(raw_area(&t.name)).or_default() += 1;
    }
    tests
        .iter()
        .map(|t| {
            let a = raw_area(&t.name);
            let row = if sizes[&a] < SMALL_AREA {
                family(&a)
            } else {
                a
            };
            (t.name.clone(), row)
        })
        .collect()
}

fn lane_order(stem: &str) -> (usize, usize, String) {
    let (backend, lane) = stem.split_once('-').unwrap_or((stem, ""));
    let b = ["gles", "vulkan"]
        .iter()
        .position(|x| *x == backend)
        .unwrap_or(9);
    let l = ["monolith", "inproc", "spawn"]
        .iter()
        .position(|x| *x == lane)
        .unwrap_or(9);
    (b, l, stem.to_string())
}

fn report() -> Result<(), String> {
    let conf = conformance_dir();
    let tests = read_list(&conf.join("piglit-public.tsv"))?;
    let areas = area_map(&tests);

    let mut columns: Vec<(String, Results)> = vec![
        (
            "native llvmpipe (compat)".into(),
            read_results(&conf.join("native-llvmpipe-public.tsv"))?,
        ),
        (
            "native llvmpipe (4.5 core)".into(),
            read_results(&conf.join("native-llvmpipe-core-public.tsv"))?,
        ),
    ];
    // Our default lanes always get a column (empty until they have results).
    let mut lanes: Vec<String> = ["gles-monolith", "gles-inproc", "gles-spawn"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Ok(rd) = fs::read_dir(results_dir()) {
        for e in rd.flatten() {
            let p = e.path();
            let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if let Some(stem) = name.strip_suffix(".tsv") {
                if !stem.starts_with("native") && !lanes.iter().any(|l| l == stem) {
                    lanes.push(stem.to_string());
                }
            }
        }
    }
    lanes.sort_by_key(|s| lane_order(s));
    let mut present = vec![true, true];
    for l in &lanes {
        let p = results_dir().join(format!("{l}.tsv"));
        let res = if p.exists() {
            read_results(&p)?
        } else {
            BTreeMap::new()
        };
        present.push(p.exists());
        columns.push((format!("MobileGL {l}"), res));
    }

    // rows: area -> (tests, passes per column)
    let mut rows: BTreeMap<String, (usize, Vec<usize>)> = BTreeMap::new();
    for t in &tests {
        let row = rows
            .entry(areas[&t.name].clone())
            .or_insert_with(|| (0, vec![0; columns.len()]));
        row.0 += 1;
        for (c, (_, res)) in columns.iter().enumerate() {
            if matches!(res.get(&t.name), Some((Status::Pass, _))) {
                row.1[c] += 1;
            }
        }
    }

    let mut t = String::new();
    t.push_str(REPORT_BEGIN);
    t.push('\n');
    t.push_str(&format!(
        "\nPass counts on the public list (`../shared/conformance/piglit-public.tsv`, {} tests), \
         per area. Areas with fewer than {SMALL_AREA} tests are folded into a family row. \
         The native columns are Mesa llvmpipe's own desktop GL on the same list; \
         a lane shown as — has no results file in `target/piglit/` yet.\n\n",
        tests.len()
    ));
    t.push_str("| Area | Tests |");
    for (name, _) in &columns {
        t.push_str(&format!(" {name} |"));
    }
    t.push_str("\n|---|---:|");
    for _ in &columns {
        t.push_str("---:|");
    }
    t.push('\n');
    let mut totals = vec![0usize; columns.len()];
    for (area, (n, passes)) in &rows {
        t.push_str(&format!("| `{area}` | {n} |"));
        for (c, p) in passes.iter().enumerate() {
            totals[c] += p;
            if present[c] {
                t.push_str(&format!(" {p} |"));
            } else {
                t.push_str(" — |");
            }
        }
        t.push('\n');
    }
    t.push_str(&format!("| **total** | **{}** |", tests.len()));
    for (c, p) in totals.iter().enumerate() {
        if present[c] {
            t.push_str(&format!(" **{p}** |"));
        } else {
            t.push_str(" — |");
        }
    }
    t.push_str("\n\nResults by status:\n\n| Column |");
    for s in Status::ALL {
        t.push_str(&format!(" {} |", s.lower()));
    }
    t.push_str(" not run |\n|---|");
    for _ in 0..=Status::ALL.len() {
        t.push_str("---:|");
    }
    t.push('\n');
    for ((name, res), present) in columns.iter().zip(&present) {
        if !present {
            continue;
        }
        t.push_str(&format!("| {name} |"));
        let mut seen = 0;
        for s in Status::ALL {
            let n = tests
                .iter()
                .filter(|x| matches!(res.get(&x.name), Some((st, _)) if *st == s))
                .count();
            seen += n;
            t.push_str(&format!(" {n} |"));
        }
        t.push_str(&format!(" {} |\n", tests.len() - seen));
    }
    t.push('\n');
    t.push_str(REPORT_END);
    t.push('\n');

    let doc = root().join("docs").join("CONFORMANCE.md");
    let old = fs::read_to_string(&doc).unwrap_or_default();
    let new = match (old.find(REPORT_BEGIN), old.find(REPORT_END)) {
        (Some(b), Some(e)) if e > b => {
            format!("{}{}{}", &old[..b], t, &old[e + REPORT_END.len()..].trim_start_matches('\n'))
        }
        _ if old.trim().is_empty() => format!(
            "# Conformance\n\n\
             MobileGL runs the public piglit list in every transport lane, the way Mesa's CI \
             runs `piglit-runner`: committed expectations in `tests/piglit/<backend>-<lane>-fails.txt` \
             (expected fails, crashes, skips, timeouts) and `-flakes.txt`; any other result, \
             an unexpected pass included, fails CI.\n\n\
             Run a lane: `cargo xtask piglit --lane <monolith|inproc|spawn|native> [--backend gles|vulkan]`; \
             accept its results as the new baseline: add `--update`; regenerate this page: \
             `cargo xtask piglit --report`.\n\n\
             ## Pass counts per area and lane\n\n{t}"
        ),
        _ => format!("{}\n\n## Pass counts per area and lane\n\n{t}", old.trim_end()),
    };
    write_atomic(&doc, &new)?;
    eprintln!(
        "wrote {} ({} areas, columns: {})",
        doc.display(),
        rows.len(),
        columns
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_like_piglit() {
        let pass = "x\nPIGLIT: {\"result\": \"pass\" }\n";
        assert_eq!(classify(pass, Some(0), None), Status::Pass);
        assert_eq!(classify(pass, Some(1), None), Status::Warn);
        assert_eq!(classify(pass, None, Some(11)), Status::Crash);
        assert_eq!(classify("no line", Some(0), None), Status::Crash);
        assert_eq!(
            classify("PIGLIT: {\"result\": \"fail\" }", Some(1), None),
            Status::Fail
        );
        assert_eq!(
            classify(
                "PIGLIT: {\"subtest\": {\"a\" : \"pass\"}}\nPIGLIT: {\"result\": \"skip\" }",
                Some(0),
                None
            ),
            Status::Skip
        );
    }

    #[test]
    fn areas() {
        assert_eq!(
            raw_area("spec@arb_texture_float@foo@bar"),
            "spec@arb_texture_float"
        );
        assert_eq!(raw_area("shaders@glsl-fs-loop"), "shaders");
        assert_eq!(raw_area("spec@!opengl 3.1@x"), "spec@!opengl 3.1");
        assert_eq!(family("spec@!opengl 4.5"), "spec@!opengl (other versions)");
        assert_eq!(family("spec@gl-3.1"), "spec@!opengl (other versions)");
        assert_eq!(family("spec@glsl-4.50"), "spec@glsl (other versions)");
        assert_eq!(family("spec@arb_sync"), "spec@ (other extensions)");
    }

    #[test]
    fn judges() {
        let exp = Expectations {
            fails: [
                ("a".to_string(), Status::Fail),
                ("s".to_string(), Status::Skip),
            ]
            .into_iter()
            .collect(),
            flakes: vec![("f.*".to_string(), Some(Regex::new("^(?:f.*)$").unwrap()))],
        };
        assert_eq!(judge(&exp, "a", Status::Fail), Verdict::Expected);
        assert_eq!(
            judge(&exp, "a", Status::Pass),
            Verdict::UnexpectedPass(Status::Fail)
        );
        assert_eq!(
            judge(&exp, "b", Status::Crash),
            Verdict::Unexpected {
                got: Status::Crash,
                want: Status::Pass
            }
        );
        assert_eq!(judge(&exp, "foo", Status::Crash), Verdict::Flake);
        assert_eq!(judge(&exp, "s", Status::Skip), Verdict::Expected);
    }
}
