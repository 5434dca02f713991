//! The catalogue of built-in policies: each one's name, aliases, description and parameters with
//! their defaults per preset. Data only; [`super::registry`] parses and builds from it.

/// A tunable parameter of a policy.
#[derive(Debug, PartialEq)]
pub struct ParamInfo {
    /// Key, as in `--param POLICY.KEY=VALUE`.
    pub name: &'static str,
    /// Default value (the policy's own paper), as text.
    pub default: &'static str,
    /// Value under the `study` preset (the prefetching study's Table 4), when it differs.
    pub study: Option<&'static str>,
    /// Value under the `accusim` preset (what the study's simulator does), when it differs from the
    /// study value.
    pub accusim: Option<&'static str>,
    /// One line on what it does.
    pub about: &'static str,
}

/// Description of a registered policy.
#[derive(Debug, PartialEq)]
pub struct PolicyInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One line on what it is.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

/// The policies that draw from `--seed` (key `seed`, [`super::registry::PolicySpec::seed`]):
/// their misses change with it. `--seed`'s help and docs/output.md list these;
/// `policy::conformance` checks the list against every policy's misses under several seeds.
pub const SEEDED: &[&str] = &["lhd", "hyperbolic", "lecar", "cacheus"];

/// Every built-in policy.
pub static POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "lru",
        aliases: &[],
        about: "least recently used",
        params: &[],
    },
    PolicyInfo {
        name: "fifo",
        aliases: &[],
        about: "first in, first out",
        params: &[],
    },
    PolicyInfo {
        name: "clock",
        aliases: &["second-chance"],
        about: "second chance, one reference bit, new blocks enter with the bit clear",
        params: &[],
    },
    PolicyInfo {
        name: "lirs",
        aliases: &[],
        about: "LIRS (Jiang & Zhang, SIGMETRICS 2002): LIR/HIR sets by inter-reference recency, stack S, queue Q",
        params: &[
            ParamInfo {
                name: "hir",
                default: "0.01",
                study: Some("0.1"),
                accusim: None,
                about: "share of the cache for resident HIR blocks (Lhirs)",
            },
            ParamInfo {
                name: "min_hir",
                default: "2",
                study: Some("32"),
                accusim: None,
                about: "minimum Lhirs in blocks (authors' code 2, AccuSim 32, libCacheSim 1)",
            },
            ParamInfo {
                name: "bound",
                default: "none",
                study: Some("stack"),
                accusim: None,
                about: "none | stack (authors'/AccuSim: HIR entry nearest the bottom leaves S) | nonresident (Caffeine: oldest non-resident dropped) | stack-nonresident (libCacheSim)",
            },
            ParamInfo {
                name: "bound_size",
                default: "2",
                study: None,
                accusim: None,
                about: "the bound, as a multiple of the cache size (|S| or non-resident entries)",
            },
            ParamInfo {
                name: "skip_dup",
                default: "true",
                study: Some("false"),
                accusim: None,
                about: "ignore a reference equal to the previous one (authors' simulator)",
            },
            ParamInfo {
                name: "warmup",
                default: "lir-count",
                study: None,
                accusim: Some("free-frames"),
                about: "a missed block becomes LIR while fewer than Llirs blocks are LIR (lir-count) or while more than Lhirs frames are free, resident prefetches included (free-frames: the authors' code and AccuSim)",
            },
            ParamInfo {
                name: "unused_prefetch_entry",
                default: "drop",
                study: None,
                accusim: Some("keep"),
                about: "an unused prefetched block that is evicted loses its S entry (drop) or stays in S as non-resident (keep: selects AccuSim's variant, compat/accusim/lirs.rs)",
            },
        ],
    },
    PolicyInfo {
        name: "clock-pro",
        aliases: &["clockpro"],
        about: "CLOCK-Pro (Jiang, Chen & Zhang, USENIX ATC 2005): hot/cold/test pages on one clock, three hands",
        params: &[
            ParamInfo {
                name: "adaptive",
                default: "true",
                study: None,
                accusim: None,
                about: "adapt the cold allocation (paper); false = the authors' simulator default, fixed at cold_min",
            },
            ParamInfo {
                name: "cold_min",
                default: "0.01",
                study: None,
                accusim: None,
                about: "lower end of the cold allocation band, share of the cache (fixed allocation when not adaptive; authors' default 0.05)",
            },
            ParamInfo {
                name: "cold_max",
                default: "1",
                study: None,
                accusim: None,
                about: "upper end of the cold allocation band, share of the cache (capped at m - 1 pages)",
            },
            ParamInfo {
                name: "cold_floor",
                default: "2",
                study: None,
                accusim: None,
                about: "minimum of both band ends in pages (authors' LOWEST_COLD_ALLOC)",
            },
            ParamInfo {
                name: "nonresident",
                default: "1",
                study: None,
                accusim: None,
                about: "bound on non-resident cold pages, multiple of the cache size (paper and authors: m; Caffeine: 2m)",
            },
            ParamInfo {
                name: "authors_bit",
                default: "false",
                study: None,
                accusim: None,
                about: "reproduce the authors' code setting the bit of the next page (not the moved one) when credit is positive",
            },
            ParamInfo {
                name: "skip_dup",
                default: "true",
                study: None,
                accusim: None,
                about: "ignore a reference equal to the previous one (authors' simulator)",
            },
        ],
    },
    PolicyInfo {
        name: "opt",
        aliases: &["belady", "min"],
        about: "Belady's MIN: evict the block referenced farthest in the future (offline)",
        params: &[ParamInfo {
            name: "ties",
            default: "first",
            study: None,
            accusim: Some("heap"),
            about: "blocks with equal next reference (never again): first (recorded earliest goes first) or heap (AccuSim's binary heap: mostly by insertion order)",
        }],
    },
    PolicyInfo {
        name: "lrfu",
        aliases: &[],
        about: "least recently/frequently used: evict the smallest combined recency-frequency value (Lee et al. 2001)",
        params: &[
            ParamInfo {
                name: "lambda",
                default: "0.001",
                study: None,
                accusim: None,
                about: "weighing function F(x) = (1/2)^(lambda x) per reference tick; 0 = LFU, 1 = LRU",
            },
            ParamInfo {
                name: "heap",
                default: "exact",
                study: None,
                accusim: Some("accusim"),
                about: "exact (true minimum CRF, log-domain keys) or accusim (AccuSim's queue: doubles scaled by its F(0), its sifting and tie rules; selects AccuSim's variant, compat/accusim/lrfu.rs)",
            },
            ParamInfo {
                name: "threshold",
                default: "none",
                study: None,
                accusim: Some("auto"),
                about: "heap/LRU-list hybrid (needs heap=accusim): none, auto (the paper's bound from lambda; 10495 at 0.001) or a block count",
            },
            ParamInfo {
                name: "float",
                default: "double",
                study: None,
                accusim: Some("x87"),
                about: "CRF comparisons in the accusim queue: double, or x87 (AccuSim's 32-bit build: first operand rounded to double, second in 64-bit-mantissa extended precision)",
            },
            ParamInfo {
                name: "prefetch_time",
                default: "next",
                study: None,
                accusim: Some("trigger"),
                about: "time of a prefetch insertion: next (the next demand reference's) or trigger (AccuSim: the triggering reference's)",
            },
        ],
    },
    PolicyInfo {
        name: "fbr",
        aliases: &["frequency-based"],
        about: "frequency-based replacement: LRU stack in new/middle/old sections, least count in old (Robinson & Devarakonda 1990)",
        params: &[
            ParamInfo {
                name: "new",
                default: "0.25",
                study: None,
                accusim: None,
                about: "share of the cache in the new section (MRU end; hits there do not count)",
            },
            ParamInfo {
                name: "old",
                default: "0.25",
                study: None,
                accusim: None,
                about: "share of the cache in the old section (LRU end; victims come from here)",
            },
            ParamInfo {
                name: "a-max",
                default: "100",
                study: None,
                accusim: None,
                about: "when the average count of resident blocks exceeds this, every count becomes ceil(count/2)",
            },
            ParamInfo {
                name: "c-max",
                default: "1000",
                study: None,
                accusim: None,
                about: "largest reference count a block can reach",
            },
        ],
    },
    PolicyInfo {
        name: "arc",
        aliases: &[],
        about: "Adaptive Replacement Cache (Megiddo & Modha, FAST 2003): T1/T2 with ghosts B1/B2, adaptive target p",
        params: &[
            ParamInfo {
                name: "p0",
                default: "0",
                study: None,
                accusim: Some("0.5"),
                about: "initial target size of T1 as a fraction of the cache (AccuSim: 0.5)",
            },
            ParamInfo {
                name: "delta",
                default: "real",
                study: None,
                accusim: Some("integer"),
                about: "adaptation step max(|B2|/|B1|,1): real (paper, libCacheSim) or integer (Caffeine, AccuSim)",
            },
            ParamInfo {
                name: "replace",
                default: "paper",
                study: None,
                accusim: Some("accusim"),
                about: "REPLACE test: paper (|T1|>p, or x in B2 and |T1|=p) or accusim (|T1|>=max(1,p); selects AccuSim's variant, compat/accusim/arc.rs)",
            },
            ParamInfo {
                name: "first_use",
                default: "mru",
                study: None,
                accusim: Some("stay"),
                about: "first demand access to a prefetched block: mru (to T1's MRU end) or stay (AccuSim; selects AccuSim's variant)",
            },
            ParamInfo {
                name: "ghost_prefetch",
                default: "defer",
                study: None,
                accusim: Some("unmarked"),
                about: "prefetch of a ghost block: defer (T1, to T2 on first use; the study), forget (new block) or unmarked (T1 as a demand-fetched block; AccuSim; selects AccuSim's variant)",
            },
            ParamInfo {
                name: "directory",
                default: "paper",
                study: None,
                accusim: Some("accusim"),
                about: "ghost bookkeeping on a miss: paper (trim B1, then B2, after the insert) or accusim (its case IV from the lengths before the miss: B2's LRU dropped first when the directory holds 2c, B1's LRU kept when the victim was an unused prefetch, REPLACE for a prefetched ghost with the unadapted p; selects AccuSim's variant)",
            },
        ],
    },
    PolicyInfo {
        name: "lru-k",
        aliases: &["lru2", "lruk"],
        about: "LRU-K (O'Neil, O'Neil, Weikum 1993) with correlated reference period and retained history",
        params: &[
            ParamInfo {
                name: "k",
                default: "2",
                study: None,
                accusim: None,
                about: "number of uncorrelated references whose times are kept (backward K-distance)",
            },
            ParamInfo {
                name: "crp",
                default: "0",
                study: Some("20"),
                accusim: None,
                about: "correlated reference period, in references; a block is ineligible for this long after a reference",
            },
            ParamInfo {
                name: "history",
                default: "1",
                study: None,
                accusim: None,
                about: "histories retained for evicted blocks, as a multiple of the cache size (0 = none)",
            },
            ParamInfo {
                name: "ties",
                default: "hist1",
                study: None,
                accusim: Some("heap"),
                about: "eligible blocks with equal HIST(K): hist1 (oldest HIST(1) first) or heap (AccuSim's binary heap: mostly by promotion order; selects AccuSim's variant, compat/accusim/lruk.rs)",
            },
            ParamInfo {
                name: "ineligible",
                default: "last",
                study: None,
                accusim: Some("entry"),
                about: "ineligible list order: last (by LAST) or entry (AccuSim: a correlated reference does not move a block; fallback victim is the earliest entered; selects AccuSim's variant)",
            },
            ParamInfo {
                name: "first_use",
                default: "fetch",
                study: None,
                accusim: Some("correlated"),
                about: "first use of a prefetched block: fetch (history shift, HIST(1) = now) or correlated (AccuSim: HIST(1) only if empty, LAST = now, block stays where it is; selects AccuSim's variant)",
            },
            ParamInfo {
                name: "prefetch_time",
                default: "next",
                study: None,
                accusim: Some("trigger"),
                about: "LAST of a prefetched block: next (time of the next demand reference) or trigger (AccuSim: time of the reference that triggered it; selects AccuSim's variant)",
            },
        ],
    },
    PolicyInfo {
        name: "car",
        aliases: &[],
        about: "Clock with Adaptive Replacement (Bansal & Modha, FAST 2004): two clocks, ghosts B1/B2, adaptive p",
        params: &[
            ParamInfo {
                name: "delta",
                default: "real",
                study: None,
                accusim: None,
                about: "adaptation step max(|B2|/|B1|,1): real (paper) or integer",
            },
            ParamInfo {
                name: "adapt",
                default: "after",
                study: None,
                accusim: None,
                about: "when p adapts on a ghost hit: after replace() (paper) or before (libCacheSim)",
            },
        ],
    },
    PolicyInfo {
        name: "2q",
        aliases: &["twoq"],
        about: "full 2Q (Johnson, Shasha 1994): A1in FIFO, A1out ghost FIFO, Am LRU",
        params: &[
            ParamInfo {
                name: "kin",
                default: "0.25",
                study: None,
                accusim: None,
                about: "A1in threshold Kin, as a fraction of the cache",
            },
            ParamInfo {
                name: "kout",
                default: "0.5",
                study: Some("1"),
                accusim: None,
                about: "A1out size Kout (ids of blocks paged out of A1in), as a multiple of the cache size",
            },
        ],
    },
    PolicyInfo {
        name: "mq",
        aliases: &["multi-queue"],
        about: "Multi-Queue (Zhou, Philbin, Li 2001): m LRU queues by log2 reference count, lifeTime demotion, Qout",
        params: &[
            ParamInfo {
                name: "queues",
                default: "8",
                study: Some("4"),
                accusim: None,
                about: "number of LRU queues m",
            },
            ParamInfo {
                name: "qout",
                default: "4",
                study: Some("1"),
                accusim: None,
                about: "Qout size (ids and counts of evicted blocks), as a multiple of the cache size",
            },
            ParamInfo {
                name: "lifetime",
                default: "1",
                study: None,
                accusim: None,
                about: "lifeTime, in references, as a multiple of the cache size",
            },
            ParamInfo {
                name: "ghost_lookup",
                default: "after-evict",
                study: None,
                accusim: Some("before-evict"),
                about: "look a missed block up in Qout after the eviction (paper) or before it (libCacheSim, AccuSim)",
            },
            ParamInfo {
                name: "count",
                default: "references",
                study: None,
                accusim: Some("prefetches"),
                about: "what raises a block's count: demand references (paper) or prefetch insertions only (prefetches: AccuSim, no prefetching makes MQ equal LRU; selects AccuSim's variant, compat/accusim/mq.rs)",
            },
            ParamInfo {
                name: "clock",
                default: "after-access",
                study: None,
                accusim: Some("before-access"),
                about: "currentTime advances after a demand reference (paper: expireTime = t + lifeTime) or before it (AccuSim: t + 1 + lifeTime; selects AccuSim's variant)",
            },
            ParamInfo {
                name: "adjust_on_prefetch",
                default: "false",
                study: None,
                accusim: Some("true"),
                about: "run Adjust (expiry demotion) after a prefetch insertion too, at the unchanged clock (true: AccuSim; selects AccuSim's variant)",
            },
            ParamInfo {
                name: "unused_count",
                default: "drop",
                study: None,
                accusim: None,
                about: "a block evicted before its first use that entered with a remembered count: drop it (prefetching study) or keep the count in Qout (keep; the default at hierarchy levels placing on eviction)",
            },
        ],
    },
    // The kernel's own replacement (issue 26 item 2): docs/policies.md, "Linux's own".
    PolicyInfo {
        name: "linux",
        aliases: &["linux-lru", "two-list"],
        about: "Linux's active/inactive lists (mm/vmscan.c) with refault detection by shadow entries (mm/workingset.c)",
        params: &[
            ParamInfo {
                name: "inactive_ratio",
                default: "auto",
                study: None,
                accusim: None,
                about: "inactive_is_low's ratio: the active list is cut back while inactive x ratio < active; auto = int_sqrt(10 x GiB of 4 KiB pages), 1 below 1 GiB",
            },
            ParamInfo {
                name: "refault",
                default: "true",
                study: None,
                accusim: None,
                about: "shadow entries: a page refaulting within the active list's size of its eviction enters the active list",
            },
            ParamInfo {
                name: "stats_every",
                default: "0",
                study: None,
                accusim: None,
                about: "demand references between flushes of the memory cgroup statistics that reclaim and the refault test read (0: always fresh; the kernel flushes every 2 s, or when memory.stat is read)",
            },
        ],
    },
    PolicyInfo {
        name: "mglru",
        aliases: &["lru-gen", "multi-gen-lru"],
        about: "Linux 6's multi-generational LRU (mm/vmscan.c lru_gen): 2 to 4 generations, tiers by descriptor accesses, refault feedback",
        params: &[
            ParamInfo {
                name: "aging",
                default: "kswapd",
                study: None,
                accusim: None,
                about: "when a new generation opens: kswapd (whenever 3 or fewer remain, as background reclaim) or direct (only at 2, when eviction would stall)",
            },
            ParamInfo {
                name: "refault",
                default: "true",
                study: None,
                accusim: None,
                about: "shadow entries: refault counts per tier for the tier controller, PG_workingset restored on a recent refault",
            },
        ],
    },
    // Today's policies, each matched to libCacheSim (docs/policies.md, "Against libCacheSim").
    PolicyInfo {
        name: "s3fifo",
        aliases: &["s3-fifo"],
        about: "S3-FIFO (Yang et al., SOSP 2023): small and main FIFO queues, ghost queue of ids evicted from small",
        params: &[
            ParamInfo {
                name: "small",
                default: "0.1",
                study: None,
                accusim: None,
                about: "share of the cache for the small FIFO queue (at least one block)",
            },
            ParamInfo {
                name: "threshold",
                default: "2",
                study: None,
                accusim: None,
                about: "move-to-main threshold: a block leaving small with at least this many hits moves to main",
            },
            ParamInfo {
                name: "ghost",
                default: "0.9",
                study: None,
                accusim: None,
                about: "ghost queue size (ids evicted from small), as a multiple of the cache size",
            },
        ],
    },
    PolicyInfo {
        name: "sieve",
        aliases: &[],
        about: "SIEVE (Zhang et al., NSDI 2024): FIFO queue with visited bits and a hand that leaves survivors in place",
        params: &[],
    },
    PolicyInfo {
        name: "slru",
        aliases: &["segmented-lru"],
        about: "segmented LRU (Karedla et al. 1994) with equal segments, as libCacheSim: a hit promotes one segment up",
        params: &[
            ParamInfo {
                name: "segments",
                default: "4",
                study: None,
                accusim: None,
                about: "number of LRU segments (libCacheSim's default 4; 2 = probation/protected)",
            },
            ParamInfo {
                name: "variant",
                default: "paper",
                study: None,
                accusim: None,
                about: "paper (segment 0 takes the remainder of c/segments, no eviction on a hit), or libcachesim: libCacheSim's SLRU.c at a count capacity (every segment floor(c/segments), segment 0 trimmed by evicting on a hit; the same when segments divides c; compat/libcachesim/slru.rs)",
            },
        ],
    },
    PolicyInfo {
        name: "lfu",
        aliases: &[],
        about: "least frequently used, counts forgotten on eviction, ties to the block that reached its count first",
        params: &[],
    },
    PolicyInfo {
        name: "lfuda",
        aliases: &[],
        about: "LFU with dynamic aging (Arlitt et al. 2000), libCacheSim's priority rules",
        params: &[],
    },
    PolicyInfo {
        name: "gdsf",
        aliases: &["greedydual-size-frequency"],
        about: "GreedyDual-Size-Frequency (Cherkasova 1998): evict the lowest L + frequency x 10^6 / size, libCacheSim's rules",
        params: &[],
    },
    PolicyInfo {
        name: "lhd",
        aliases: &["least-hit-density"],
        about: "Least Hit Density (Beckmann et al., NSDI 2018): evict the lowest hits per space-time among random samples, densities learned per class",
        params: &[
            ParamInfo {
                name: "associativity",
                default: "32",
                study: None,
                accusim: None,
                about: "objects drawn per eviction once the model has warmed up (8 during the first 50 reconfigurations)",
            },
            ParamInfo {
                name: "admissions",
                default: "8",
                study: None,
                accusim: None,
                about: "recently admitted low-density objects also considered at each eviction",
            },
        ],
    },
    PolicyInfo {
        name: "wtinylfu",
        aliases: &["w-tinylfu"],
        about: "W-TinyLFU (Einziger et al., TOS 2017) as in Caffeine: window LRU, probation/protected main, count-min sketch with doorkeeper and aging",
        params: &[
            ParamInfo {
                name: "window",
                default: "0.01",
                study: None,
                accusim: None,
                about: "share of the cache for the window LRU (at least one block; libcachesim: floor of the share, nothing cached when 0)",
            },
            ParamInfo {
                name: "variant",
                default: "paper",
                study: None,
                accusim: None,
                about: "paper (Caffeine's design), or libcachesim: libCacheSim's WTinyLFU.c as libcachesim 0.3.5 runs it (SLRU main 1:4, counting Bloom filter halved after 32x main's size in main hits, eviction loop), exact with dense ids",
            },
        ],
    },
    // Learned and sampled policies (issue 26), randomised ones seeded by --seed (PolicySpec::seed).
    PolicyInfo {
        name: "hyperbolic",
        aliases: &[],
        about: "hyperbolic caching (Blankstein et al., ATC 2017): evict the lowest references/time-in-cache among random samples",
        params: &[ParamInfo {
            name: "samples",
            default: "64",
            study: None,
            accusim: None,
            about: "resident blocks drawn (with replacement) per eviction (paper and libCacheSim: 64)",
        }],
    },
    PolicyInfo {
        name: "lecar",
        aliases: &[],
        about: "LeCaR (Vietri et al., HotStorage 2018): LRU and LFU experts drawn by weight, regret from a history of evictions",
        params: &[
            ParamInfo {
                name: "lr",
                default: "0.45",
                study: None,
                accusim: None,
                about: "learning rate: a history hit multiplies the evicting expert's weight by exp(-lr x discount^t)",
            },
            ParamInfo {
                name: "discount",
                default: "0.005",
                study: None,
                accusim: None,
                about: "discount after a cache size of references: the per-reference discount is its c-th root",
            },
            ParamInfo {
                name: "variant",
                default: "paper",
                study: None,
                accusim: None,
                about: "paper, or libcachesim: one history of floor(c/2) ids per expert, no draw (and no history entry) when both experts pick the same victim, and the draws made as libcachesim 0.3.5 does (seed 0 replays its first cache in a process)",
            },
        ],
    },
    PolicyInfo {
        name: "cacheus",
        aliases: &[],
        about: "Cacheus (Rodriguez et al., FAST 2021): SR-LRU and CR-LFU experts drawn by weight, adaptive learning rate",
        params: &[
            ParamInfo {
                name: "adapt_size",
                default: "true",
                study: None,
                accusim: None,
                about: "move SR's target by demoted and new history hits (paper); false keeps it at c/2, as libCacheSim's code does",
            },
            ParamInfo {
                name: "adapt_rate",
                default: "true",
                study: None,
                accusim: None,
                about: "move the learning rate along the hit rate every c references (paper); false keeps the first random rate, as libCacheSim's code does",
            },
            ParamInfo {
                name: "variant",
                default: "paper",
                study: None,
                accusim: None,
                about: "paper, or libcachesim: SR and R capped at floor(c/2) each with SR's overflow leaving even with room free, SR growing but never shrinking, the learning rate stepped and the draws made as libcachesim 0.3.5 does (seed 0 replays its first cache in a process)",
            },
        ],
    },
];
