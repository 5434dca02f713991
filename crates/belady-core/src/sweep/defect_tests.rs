//! Sweep regressions from issue #19: duplicate runs, concurrent sweeps, bad parameter values.

use super::store::Store;
use super::{Experiment, Plan};
use std::path::Path;

fn trace(dir: &Path) {
    let ids: String = (0..400).map(|i| format!("{}\n", (i * 7) % 90)).collect();
    std::fs::write(dir.join("t.trace"), ids).unwrap();
}

fn plan(dir: &Path, toml: &str) -> crate::Result<Plan> {
    Plan::new(&Experiment::from_toml(toml, "e.toml")?, dir, "e")
}

#[test]
fn a_trace_or_policy_listed_twice_is_planned_once() {
    let dir = tempfile::tempdir().unwrap();
    trace(dir.path());
    let p = plan(
        dir.path(),
        "policies = [\"lru\", \"lru\", \"arc\"]\nsizes = [\"10\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    )
    .unwrap();
    // 2 traces x 3 policies = 6 listed; one trace and one policy are repeats: 2 distinct runs.
    assert_eq!(p.runs.len(), 2);
    assert_eq!(p.duplicates, 4);
    let store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let todo = p.pending(&store).unwrap();
    let done = p
        .execute_counted(&todo, &store, Some(1), &mut || {})
        .unwrap();
    assert_eq!(done.computed, 2);
    assert_eq!(
        store.runs().unwrap().len(),
        2,
        "what was computed is what is stored"
    );
}

#[test]
fn concurrent_sweeps_on_one_store_compute_each_run_once() {
    let dir = tempfile::tempdir().unwrap();
    trace(dir.path());
    let toml = "policies = [\"lru\", \"arc\", \"lirs\", \"opt\"]\nsizes = [\"5\", \"10\", \"20\", \"40\"]\n\
                [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n";
    let db = dir.path().join("s.sqlite");
    Store::open(&db).unwrap();
    let sweeps: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let p = plan(dir.path(), toml).unwrap();
                    let store = Store::open(&db).unwrap();
                    let todo = p.pending(&store).unwrap();
                    let done = p
                        .execute_counted(&todo, &store, Some(2), &mut || {})
                        .unwrap();
                    (todo.len(), done)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let computed: usize = sweeps.iter().map(|(_, d)| d.computed).sum();
    assert_eq!(
        computed, 16,
        "each of the 16 runs computed once: {sweeps:?}"
    );
    for (todo, d) in &sweeps {
        assert_eq!(d.computed + d.left_to_others, *todo, "{sweeps:?}");
    }
    assert_eq!(Store::open(&db).unwrap().runs().unwrap().len(), 16);
}

#[test]
fn a_bad_parameter_value_fails_before_any_run_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    trace(dir.path());
    let err = plan(
        dir.path(),
        "policies = [\"lru\", \"lirs\"]\nsizes = [\"10\"]\nparams = [\"lirs.hir=abc\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    )
    .err()
    .expect("refused at plan time")
    .to_string();
    assert!(err.contains("lirs.hir=abc") || err.contains("hir"), "{err}");
}

#[test]
fn one_simulation_spelled_several_ways_is_planned_and_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    trace(dir.path());
    // lru and LRU are one policy; t.trace and ./t.trace one trace: four spellings, one run.
    let p = plan(
        dir.path(),
        "policies = [\"lru\", \"LRU\"]\nsizes = [\"10\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n\
         [[trace]]\npath = \"./t.trace\"\nformat = \"lirs\"\n",
    )
    .unwrap();
    assert_eq!(p.runs.len(), 1, "four spellings of one run");
    assert_eq!(p.duplicates, 3);
    let store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let todo = p.pending(&store).unwrap();
    p.execute_counted(&todo, &store, Some(1), &mut || {})
        .unwrap();
    assert_eq!(store.runs().unwrap().len(), 1);
    // A parameter's policy is spelled as registered too.
    let p = plan(
        dir.path(),
        "policies = [\"lirs\"]\nsizes = [\"10\"]\nparams = [\"LIRS.hir=0.1\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    )
    .unwrap();
    let q = plan(
        dir.path(),
        "policies = [\"lirs\"]\nsizes = [\"10\"]\nparams = [\"lirs.hir=0.1\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    )
    .unwrap();
    assert_eq!(p.runs[0].1.key(), q.runs[0].1.key());
}

/// Issue 37: a sweep whose runs another sweep had only claimed returned at once, counting them
/// "computed by another sweep", and when that sweep then died the store held none of them.
/// Now it waits: for runs the other stores, and takes over those it abandons.
#[test]
fn runs_another_sweep_only_claimed_are_waited_for_or_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    trace(dir.path());
    let toml = "policies = [\"lru\", \"arc\"]\nsizes = [\"5\", \"10\", \"20\"]\n\
                [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n";
    let db = dir.path().join("s.sqlite");
    let p = plan(dir.path(), toml).unwrap();
    let store = Store::open(&db).unwrap();
    let todo = p.pending(&store).unwrap();
    assert_eq!(todo.len(), 6);
    for abandon in [true, false] {
        let fresh = dir.path().join(format!("s{abandon}.sqlite"));
        let store = Store::open(&fresh).unwrap();
        // The first sweep claims every run and has stored none of them yet.
        let first = store.claims().unwrap();
        for &i in &todo {
            assert!(first.claim(&p.runs[i].1.key()).unwrap());
        }
        let finished = std::sync::atomic::AtomicBool::new(false);
        let done = std::thread::scope(|s| {
            let second = s.spawn(|| {
                let store = Store::open(&fresh).unwrap();
                let d = p.execute_counted(&todo, &store, Some(1), &mut || {});
                finished.store(true, std::sync::atomic::Ordering::SeqCst);
                d
            });
            std::thread::sleep(std::time::Duration::from_millis(600));
            assert!(
                !finished.load(std::sync::atomic::Ordering::SeqCst),
                "returned while every run was only claimed"
            );
            if abandon {
                // The first sweep stops without storing anything (as a killed one does).
                drop(first);
            } else {
                // The first sweep stores its runs, then lets go of its claims.
                for &i in &todo {
                    let row = super::execute::run_cell(&p.runs[i].1).unwrap();
                    store.insert(&p.name, &p.runs[i].1, &row).unwrap();
                }
                first.release_all().unwrap();
            }
            second.join().unwrap().unwrap()
        });
        let (computed, others) = if abandon { (6, 0) } else { (0, 6) };
        assert_eq!((done.computed, done.left_to_others), (computed, others));
        assert_eq!(store.runs().unwrap().len(), 6, "a return means stored");
    }
}
