//! The measured runs of `belady calibrate replacement`: one record per run, the capacity each
//! run's residency samples show, and the `replacement.tsv` that `--save` writes and `--from`
//! reads back.

use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// One measured run of a pattern at a limit.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunRecord {
    /// The pattern's spec, every parameter spelled out.
    pub pattern: String,
    /// Its seed.
    pub seed: u64,
    /// The cgroup's limit in bytes.
    pub limit_bytes: u64,
    /// 1, 2, ...
    pub run: u32,
    /// Reads issued.
    pub reads: u64,
    /// Reads whose page was not resident.
    pub misses: u64,
    /// Mean resident pages once the cache filled: what the kernel held.
    pub held_pages: f64,
    /// Resident pages at which reclaim started (the mean of the peaks of 32-sample windows).
    pub peak_pages: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Pages global reclaim scanned meanwhile (0 on a quiet machine).
    pub global_scanned: u64,
}

/// What a saved file says about where it was measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Setting {
    /// `Linux 6.18.44-...`.
    pub kernel: String,
    /// `ext4`.
    pub file_system: String,
    /// `fresh` or `natural`.
    pub statistics: String,
    /// The kernel's multi-generational LRU: `enabled`, `off` or `absent` (not built), which
    /// decides the model checked when the runs are read back elsewhere.
    pub lru_gen: String,
    /// Bytes per page.
    pub page_size: u64,
    /// The scratch file's bytes.
    pub file_bytes: u64,
    /// When.
    pub date: String,
}

/// Windows of residency samples whose peaks make the reclaim level.
const PEAK_WINDOW: usize = 32;

/// (held, peak) pages from residency samples: the samples from the first one within 3% of the
/// largest (the cache has filled) on; held is their mean, peak the mean of each window's
/// largest (reclaim starts at the cgroup's limit, and the cache then holds about half a reclaim
/// batch less; the limit's share left to pages shrinks a little as the cache's shadow entries
/// take kernel memory, so the peak is averaged over the run).
pub fn capacity(samples: &[u32]) -> (f64, f64) {
    let Some(&max) = samples.iter().max() else {
        return (0.0, 0.0);
    };
    let from = samples
        .iter()
        .position(|&s| s as f64 >= 0.97 * max as f64)
        .unwrap_or(0);
    let steady = &samples[from..];
    let held = steady.iter().map(|&s| s as f64).sum::<f64>() / steady.len() as f64;
    let peaks: Vec<f64> = steady
        .chunks(PEAK_WINDOW)
        .filter(|w| w.len() * 4 >= PEAK_WINDOW || steady.len() < PEAK_WINDOW)
        .map(|w| *w.iter().max().expect("non-empty") as f64)
        .collect();
    let peak = peaks.iter().sum::<f64>() / peaks.len().max(1) as f64;
    (held, peak)
}

const COLUMNS: &str =
    "pattern\tseed\tlimit_bytes\trun\treads\tmisses\theld_pages\tpeak_pages\tseconds\tglobal_scanned";

/// The text `--save` writes: a `#` line with the setting, the column names, one row per run.
pub fn to_tsv(setting: &Setting, runs: &[RunRecord]) -> String {
    let mut out = format!(
        "# belady calibrate replacement: kernel {}, file system {}, statistics {}, lru_gen {}, page {}, file {} bytes, {}\n{COLUMNS}\n",
        setting.kernel,
        setting.file_system,
        setting.statistics,
        setting.lru_gen,
        setting.page_size,
        setting.file_bytes,
        setting.date
    );
    for r in runs {
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{:.1}\t{:.1}\t{:.1}\t{}",
            r.pattern,
            r.seed,
            r.limit_bytes,
            r.run,
            r.reads,
            r.misses,
            r.held_pages,
            r.peak_pages,
            r.seconds,
            r.global_scanned
        );
    }
    out
}

/// Reads `dir/replacement.tsv`.
pub fn load(dir: &Path) -> Result<(Setting, Vec<RunRecord>)> {
    let path = dir.join("replacement.tsv");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// Parses the text of a `replacement.tsv` named `name` in errors.
pub fn parse(text: &str, name: &str) -> Result<(Setting, Vec<RunRecord>)> {
    let mut setting = None;
    let mut runs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{name} line {}", n + 1);
        if let Some(comment) = line.strip_prefix('#') {
            setting = Some(parse_setting(comment).map_err(|e| anyhow!("{}: {e}", at()))?);
            continue;
        }
        if line.trim().is_empty() || line.starts_with("pattern\t") {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [pattern, seed, limit, run, reads, misses, held, peak, seconds, global] = cols[..]
        else {
            bail!(
                "{}: expected 10 tab-separated columns ({}), found {}",
                at(),
                COLUMNS.replace('\t', ", "),
                cols.len()
            );
        };
        let whole = |v: &str, what: &str| {
            v.parse::<u64>()
                .map_err(|_| anyhow!("{}: {what} '{v}' is not a whole number", at()))
        };
        let number = |v: &str, what: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| anyhow!("{}: {what} '{v}' is not a number", at()))
        };
        crate::calibrate_replacement_patterns::Spec::parse(pattern)
            .map_err(|e| anyhow!("{}: {e}", at()))?;
        runs.push(RunRecord {
            pattern: pattern.to_string(),
            seed: whole(seed, "seed")?,
            limit_bytes: whole(limit, "limit_bytes")?,
            run: whole(run, "run")? as u32,
            reads: whole(reads, "reads")?,
            misses: whole(misses, "misses")?,
            held_pages: number(held, "held_pages")?,
            peak_pages: number(peak, "peak_pages")?,
            seconds: number(seconds, "seconds")?,
            global_scanned: whole(global, "global_scanned")?,
        });
    }
    let setting = setting.ok_or_else(|| {
        anyhow!("{name}: no '# belady calibrate replacement: ...' line with the page and file size")
    })?;
    if runs.is_empty() {
        bail!("{name}: no runs");
    }
    Ok((setting, runs))
}

/// The `#` line's `key value` pairs.
fn parse_setting(comment: &str) -> Result<Setting> {
    let body = comment
        .trim()
        .strip_prefix("belady calibrate replacement:")
        .ok_or_else(|| anyhow!("expected '# belady calibrate replacement: ...'"))?;
    let mut s = Setting::default();
    for part in body.split(", ") {
        let part = part.trim();
        if let Some(v) = part.strip_prefix("kernel ") {
            s.kernel = v.to_string();
        } else if let Some(v) = part.strip_prefix("file system ") {
            s.file_system = v.to_string();
        } else if let Some(v) = part.strip_prefix("statistics ") {
            s.statistics = v.to_string();
        } else if let Some(v) = part.strip_prefix("lru_gen ") {
            if !matches!(v, "enabled" | "off" | "absent") {
                bail!("lru_gen '{v}': expected enabled, off or absent");
            }
            s.lru_gen = v.to_string();
        } else if let Some(v) = part.strip_prefix("page ") {
            s.page_size = v
                .parse()
                .map_err(|_| anyhow!("page '{v}' is not a whole number"))?;
        } else if let Some(v) = part.strip_prefix("file ") {
            let v = v.trim_end_matches(" bytes");
            s.file_bytes = v
                .parse()
                .map_err(|_| anyhow!("file '{v}' is not a whole number of bytes"))?;
        } else {
            s.date = part.to_string();
        }
    }
    if s.page_size == 0 || s.file_bytes == 0 {
        bail!("the line names no page size or file size ('page N', 'file N bytes')");
    }
    if s.lru_gen.is_empty() {
        bail!("the line does not say whether the kernel ran MGLRU ('lru_gen enabled', 'off' or 'absent')");
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_the_mean_after_filling_and_the_mean_window_peak() {
        // Filling (1000, 2000), then a sawtooth from 3960 up to 4000, eight times.
        let mut s = vec![1000, 2000];
        for _ in 0..8 {
            s.extend((0..32).map(|i| 3960 + i * 40 / 31));
        }
        let (held, peak) = capacity(&s);
        assert!((3975.0..3985.0).contains(&held), "{held}");
        assert_eq!(peak, 4000.0);
        assert_eq!(capacity(&[]), (0.0, 0.0));
        assert_eq!(capacity(&[7, 7]), (7.0, 7.0));
    }

    #[test]
    fn a_saved_file_reads_back_and_bad_lines_name_their_line() {
        let setting = Setting {
            kernel: "Linux 6.18.44".into(),
            file_system: "ext4".into(),
            statistics: "fresh".into(),
            lru_gen: "absent".into(),
            page_size: 4096,
            file_bytes: 1 << 30,
            date: "2026-11-29 07:00 UTC".into(),
        };
        let run = RunRecord {
            pattern: "loop:size=1.1,passes=8".into(),
            seed: 1,
            limit_bytes: 16 << 20,
            run: 1,
            reads: 36044,
            misses: 36044,
            held_pages: 4023.5,
            peak_pages: 4049.0,
            seconds: 5.5,
            global_scanned: 0,
        };
        let text = to_tsv(&setting, std::slice::from_ref(&run));
        assert_eq!(parse(&text, "t").unwrap(), (setting, vec![run]));
        let bad = text.replace("\t36044\t36044", "\t36044\tmany");
        let err = parse(&bad, "r.tsv").unwrap_err().to_string();
        assert_eq!(err, "r.tsv line 3: misses 'many' is not a whole number");
        let err = parse(&text.replace("\t5.5\t", "\t"), "r.tsv")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("r.tsv line 3: expected 10 tab-separated columns"),
            "{err}"
        );
        let err = parse(&text.replace("loop:", "lop:"), "r.tsv")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("r.tsv line 3: unknown pattern 'lop'"),
            "{err}"
        );
        let err = parse("pattern\tseed\n", "r.tsv").unwrap_err().to_string();
        assert!(err.contains("no '# belady calibrate replacement"), "{err}");
    }
}
