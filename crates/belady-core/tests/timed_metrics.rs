//! The timed run's metrics on a program small enough to work out by hand, with a device that
//! takes 2 ms for every request.

mod common;
use belady_core::disk::fixed::FixedParams;
use belady_core::disk::DiskConfig;
use belady_core::engine::file::{run_file_one, FileSimConfig};
use belady_core::policy::registry::PolicySpec;
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::FileEventKind;
use common::{call, program};

const SIZE: u64 = 200 * 4096;

#[test]
fn busy_time_utilisation_and_response_times_by_hand() {
    // After 1 ms of computing, one 80 KB read: 20 blocks, two synchronous requests (16 + 4
    // blocks, the 64 KB cap) issued together. The device serves them one after the other, so
    // they answer in 2 and 4 ms and the program waits 4 ms. Another 1 ms of computing, then a
    // one-block read elsewhere: 2 ms more. Run time 1 + 4 + 1 + 2 = 8 ms, of which 6 ms waiting
    // and 6 ms of device work: utilisation 0.75; responses 2, 4 and 2 ms.
    let t = program(vec![
        call(0, SIZE, FileEventKind::Open),
        call(
            1000,
            SIZE,
            FileEventKind::Read {
                offset: 0,
                len: 20 * 4096,
            },
        ),
        call(
            1000,
            SIZE,
            FileEventKind::Read {
                offset: 100 * 4096,
                len: 4096,
            },
        ),
    ]);
    let cfg = FileSimConfig {
        prefetch: PrefetchKind::None,
        disk: Some(DiskConfig::Fixed(FixedParams {
            latency_ms: 2.0,
            per_sector_ms: 0.0,
        })),
        ..FileSimConfig::default()
    };
    let r = run_file_one(&PolicySpec::parse("lru").unwrap(), &t, 100, &cfg).unwrap();
    let io = r.io.unwrap();
    assert_eq!((r.misses, io.sync_requests, io.async_requests), (21, 3, 0));
    assert_eq!(
        (io.sync_blocks_per_request, io.async_blocks_per_request),
        (7.0, 0.0)
    );
    let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
    assert!(close(io.exec_time_s, 0.008), "{:?}", io.exec_time_s);
    assert!(close(io.proc_time_s, 0.002));
    assert!(close(io.io_wait_s, 0.006));
    assert!(close(io.disk_busy_s, 0.006));
    assert!(close(io.disk_utilization, 0.75));
    assert!(close(io.mean_response_ms, 8.0 / 3.0));
    assert!(close(io.p99_response_ms, 4.0));
    assert_eq!(io.late, 0);
}
