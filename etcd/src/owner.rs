//! What a worker key holds: which process has the value, for operators,
//! and its clock reading, for claimants comparing clocks.

/// The worker key's value for this process at `clock_ms`.
pub(crate) fn owner(clock_ms: i64) -> String {
    format!("{} clock={clock_ms}", host_and_pid())
}

fn host_and_pid() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    format!("host={} pid={}", host.trim(), std::process::id())
}
