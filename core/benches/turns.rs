//! The few-nanosecond rows, each beside its peer or floor, measured in
//! turns: every round times each row once, and a row keeps its best round.
//! On a shared machine, rows that criterion measures seconds apart swing by
//! half between runs; in turns, a row and its reference see the same load.
//! Prints a Markdown table for docs/benchmarks.md (`make bench`).

use std::hint::black_box;
use std::time::Instant;

use polyflake::{Encoding, Layout};

mod common;
use common::{checked_floor, RuntimePlan};

const ROUNDS: usize = 25;
const CALLS: u64 = 2_000_000;

/// Nanoseconds per call of `f` over `CALLS` calls.
fn time<R>(mut f: impl FnMut() -> R) -> f64 {
    let start = Instant::now();
    for _ in 0..CALLS {
        black_box(f());
    }
    start.elapsed().as_secs_f64() * 1e9 / CALLS as f64
}

fn main() {
    let snowflake_id = Layout::snowflake()
        .compose(1_700_000_000_000, 1234, &[801])
        .unwrap();
    let twitter_id = Layout::twitter()
        .compose(1_700_000_000_000, 1234, &[17, 29])
        .unwrap();
    let preset = Layout::snowflake();
    let twin = Layout::custom(1_288_834_974_657, 41)
        .node("node_id", 10)
        .build()
        .unwrap();
    let plan = RuntimePlan::snowflake();
    // The three fields snowflaked returns, from polyflake's one decode.
    macro_rules! fields {
        ($layout:expr) => {{
            let parts = $layout.decode(black_box(snowflake_id)).unwrap();
            (parts.ticks, parts.nodes()[0], parts.sequence)
        }};
    }

    // (row, what it is, the row it is set beside)
    let rows: [(&str, &str, usize); 8] = [
        ("snowflaked", "snowflaked: `timestamp()`, `instance()`, `sequence()`", 0),
        ("checked-floor", "floor: its shifts plus the refusal of a set unused bit (hand-written)", 0),
        ("polyflake", "polyflake, the same three fields, `Layout::snowflake().decode(id)`", 0),
        ("runtime-floor", "floor of a layout read at run time: those shifts, amounts and masks loaded (hand-written)", 0),
        ("polyflake-runtime", "polyflake, the `snowflake` preset known only at run time", 3),
        ("polyflake-custom", "polyflake, a custom layout of that shape", 3),
        ("itoa", "`itoa`: an ID to decimal text", 6),
        ("decimal", "polyflake `Encoding::Decimal.encode(id)`", 6),
    ];
    let mut best = [f64::INFINITY; 8];
    for _ in 0..ROUNDS {
        let round = [
            time(|| {
                use snowflaked::Snowflake;
                let id = black_box(snowflake_id);
                (id.timestamp(), id.instance(), id.sequence())
            }),
            time(|| checked_floor(black_box(snowflake_id))),
            time(|| fields!(Layout::snowflake())),
            time(|| black_box(&plan).decode(black_box(snowflake_id))),
            time(|| fields!(black_box(&preset))),
            time(|| fields!(black_box(&twin))),
            time(|| {
                let mut buffer = itoa::Buffer::new();
                black_box(buffer.format(black_box(twitter_id)));
            }),
            time(|| {
                let encoded = Encoding::Decimal.encode(black_box(twitter_id));
                black_box(encoded.as_bytes());
            }),
        ];
        for (b, t) in best.iter_mut().zip(round) {
            *b = b.min(t);
        }
    }

    println!("Measured in turns, best of {ROUNDS} rounds of {CALLS} calls each (`cargo bench --bench turns`).");
    println!();
    println!("| row | ns per call | beside | ratio |");
    println!("|---|---|---|---|");
    for (i, (_, what, beside)) in rows.iter().enumerate() {
        if i == *beside {
            println!("| {what} | {:.2} | | |", best[i]);
        } else {
            let (reference, _, _) = rows[*beside];
            println!(
                "| {what} | {:.2} | {reference} {:.2} | {:.2}× |",
                best[i],
                best[*beside],
                best[i] / best[*beside]
            );
        }
    }
    let custom_vs_snowflaked = best[5] / best[0];
    let floor_vs_snowflaked = best[3] / best[0];
    println!();
    println!(
        "A custom layout: {custom_vs_snowflaked:.2}× snowflaked, where any layout read at run time \
         starts at {floor_vs_snowflaked:.2}× (the run-time floor)."
    );

    // Every encoding beside decimal, each with its encoding a constant, as
    // in `Encoding::Base64.encode(id)`.
    macro_rules! formats {
        ($($encoding:ident),*) => {{
            let mut best = [f64::INFINITY; [$(Encoding::$encoding),*].len()];
            for _ in 0..ROUNDS {
                let round = [$(time(|| {
                    let encoded = Encoding::$encoding.encode(black_box(twitter_id));
                    black_box(encoded.as_bytes());
                })),*];
                for (b, t) in best.iter_mut().zip(round) {
                    *b = b.min(t);
                }
            }
            [$(Encoding::$encoding),*].into_iter().zip(best)
        }};
    }
    #[rustfmt::skip]
    let formats: Vec<(Encoding, f64)> =
        formats!(Decimal, Hex, Base2, Base32, Base36, Base58, Base64, Crockford32, Bytes).collect();

    // Every parse beside decimal's, each from its encoding's text.
    macro_rules! parses {
        ($($encoding:ident),*) => {{
            let texts = [$(Encoding::$encoding.encode(twitter_id)),*];
            let mut best = [f64::INFINITY; [$(Encoding::$encoding),*].len()];
            for _ in 0..ROUNDS {
                let mut texts = texts.iter();
                let round = [$({
                    let text = texts.next().unwrap().as_bytes();
                    time(|| Encoding::$encoding.parse(black_box(text)).unwrap())
                }),*];
                for (b, t) in best.iter_mut().zip(round) {
                    *b = b.min(t);
                }
            }
            best
        }};
    }
    #[rustfmt::skip]
    let parses = parses!(Decimal, Hex, Base2, Base32, Base36, Base58, Base64, Crockford32, Bytes);
    println!();
    println!("| encoding | format (ns) | ÷ decimal format | parse (ns) | ÷ decimal parse |");
    println!("|---|---|---|---|---|");
    for ((encoding, format), parse) in formats.iter().zip(parses) {
        println!(
            "| {encoding} | {format:.2} | {:.2} | {parse:.2} | {:.2} |",
            format / formats[0].1,
            parse / parses[0]
        );
    }
}
