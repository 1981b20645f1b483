//! `polyflake`: mint, compose, decode and convert Snowflake IDs.

mod failure;
mod render;
#[cfg(feature = "serve")]
mod serve;
mod time;

use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use failure::Failure;
use polyflake::{identity::split_node_number, Encoding, GeneratorRequest, IdentityRequest, Layout};
use polyflake_connectors::CONNECTORS;

#[derive(Parser)]
#[command(
    name = "polyflake",
    version,
    about = "Mint, read and convert Snowflake IDs."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Mint IDs. Identity from flags, else the environment, else a local lease.
    Next(NextArgs),
    /// Build an ID from its parts and show its bits.
    Compose(ComposeArgs),
    /// Take an ID apart.
    Decode(DecodeArgs),
    /// Re-encode an ID.
    Convert(ConvertArgs),
    /// The preset layouts: epochs, widths, ranges, and when each runs out.
    Layouts,
    /// The ID service: batches over HTTP, the composer page, health, readiness and metrics.
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
}

/// The service's settings, from flags or the environment.
#[cfg(feature = "serve")]
#[derive(Args)]
struct ServeArgs {
    /// The preset layout IDs are issued in. `twitter` here, `snowflake` for the
    /// one-off subcommands: the reason is in docs/service.md.
    #[arg(long, env = "POLYFLAKE_LAYOUT", default_value = "twitter")]
    layout: String,
    /// Where to listen.
    #[arg(long, env = "POLYFLAKE_LISTEN", default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// Where to answer gRPC too (polyflake.v1.Ids, grpc.health.v1 and
    /// reflection; cli/proto/polyflake/v1/ids.proto); off unless given.
    #[arg(long, env = "POLYFLAKE_GRPC_LISTEN")]
    grpc_listen: Option<std::net::SocketAddr>,
    /// When the clock reads earlier than the last tick issued: wait (up to
    /// --max-backwards-ms, then refuse), fail (refuse at once) or logical
    /// (issue ahead of the clock).
    #[arg(long, env = "POLYFLAKE_ON_CLOCK_BACKWARDS", default_value = "wait", value_parser = clap::builder::PossibleValuesParser::new(polyflake::BackwardsPolicy::NAMES))]
    on_clock_backwards: String,
    /// The longest wait of the policy `wait`, in milliseconds.
    #[arg(long, env = "POLYFLAKE_MAX_BACKWARDS_MS", default_value_t = polyflake::BackwardsPolicy::DEFAULT_WAIT_MS)]
    max_backwards_ms: u64,
    /// The clock: monotonic (anchored to wall time once, immune to steps) or
    /// wall (follows every step of the system clock).
    #[arg(long, env = "POLYFLAKE_CLOCK", default_value = "monotonic", value_parser = ["monotonic", "wall"])]
    clock: String,
}

/// The worker identity follows the environment (an etcd lease with
/// `POLYFLAKE_ETCD_ENDPOINTS`; docs/identity.md).
#[cfg(feature = "serve")]
fn serve(args: ServeArgs) -> Result<(), Failure> {
    let layout = layout(&args.layout)?;
    let policy = polyflake::BackwardsPolicy::parse(
        &args.on_clock_backwards,
        args.max_backwards_ms,
        "--on-clock-backwards",
    )?;
    let mut request = GeneratorRequest::new(layout, IdentityRequest::Environment);
    request.clock = Some(polyflake::clock::named_clock(&args.clock, "--clock")?);
    request.policy = policy;
    serve::run(request.resolve(CONNECTORS)?, args.listen, args.grpc_listen)
}

#[derive(Args)]
struct NodeFlags {
    /// One number over all node fields (`twitter`: datacenter * 32 + machine).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    node_id: Option<u64>,
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    datacenter_id: Option<u64>,
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    machine_id: Option<u64>,
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    worker_id: Option<u64>,
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    process_id: Option<u64>,
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    shard_id: Option<u64>,
}

impl NodeFlags {
    fn given(&self) -> Vec<(&'static str, u64)> {
        [
            ("node_id", self.node_id),
            ("datacenter_id", self.datacenter_id),
            ("machine_id", self.machine_id),
            ("worker_id", self.worker_id),
            ("process_id", self.process_id),
            ("shard_id", self.shard_id),
        ]
        .into_iter()
        .filter_map(|(n, v)| v.map(|v| (n, v)))
        .collect()
    }

    /// Node values in layout order, or `None` when no flag was given.
    fn resolve(&self, layout: &Layout) -> Result<Option<Vec<u64>>, Failure> {
        let given = self.given();
        if given.is_empty() {
            return Ok(None);
        }
        // --node-id on a layout without such a field spreads over all of them.
        if let [("node_id", n)] = given[..] {
            if layout.node_index("node_id").is_none() {
                return Ok(Some(split_node_number(layout, n, "node_id")?));
            }
        }
        let values = layout.node_values(given)?;
        Ok(Some(values[..layout.node_fields().len()].to_vec()))
    }
}

#[derive(Args)]
struct NextArgs {
    /// A preset layout.
    #[arg(long, default_value = "snowflake")]
    layout: String,
    #[command(flatten)]
    nodes: NodeFlags,
    /// How many IDs.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    count: usize,
    /// decimal, hex, base2, base32, base36, base58, base64, crockford32 or bytes (as hex).
    #[arg(long, default_value = "decimal")]
    format: String,
    /// A JSON array of strings.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ComposeArgs {
    #[arg(long, default_value = "snowflake")]
    layout: String,
    /// Unix milliseconds or ISO-8601 (2024-05-01T12:00:00.000Z).
    #[arg(long)]
    timestamp: String,
    #[command(flatten)]
    nodes: NodeFlags,
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    sequence: u64,
    /// Print the ID only.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct DecodeArgs {
    /// The ID, in the encoding given by --from.
    id: String,
    #[arg(long, default_value = "snowflake")]
    layout: String,
    #[arg(long, default_value = "decimal")]
    from: String,
    /// One flat JSON object; the ID as a string.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ConvertArgs {
    id: String,
    #[arg(long, default_value = "decimal")]
    from: String,
    #[arg(long)]
    to: String,
}

fn layout(name: &str) -> Result<Layout, Failure> {
    Layout::preset(name).map_err(|e| Failure::core("--layout", e))
}

fn encoding(flag: &str, name: &str) -> Result<Encoding, Failure> {
    Encoding::from_name(name).map_err(|e| Failure::core(flag, e))
}

/// Text for an ID; `bytes` shows as 16 hex digits.
fn show(id: u64, encoding: Encoding) -> String {
    encoding.encode(id).to_string()
}

fn read(text: &str, encoding: Encoding) -> Result<u64, Failure> {
    if encoding.is_binary() {
        return Encoding::Hex.parse(text).map_err(|_| {
            Failure::Usage(format!(
                "ID {text:?}: with --from bytes give the 8 bytes as 16 hex digits"
            ))
        });
    }
    encoding
        .parse(text)
        .map_err(|e| Failure::core(format!("ID {text:?}"), e))
}

/// Colour on a terminal (or with `CLICOLOR_FORCE`), never with `NO_COLOR`.
fn colour() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    !set("NO_COLOR") && (set("CLICOLOR_FORCE") || std::io::stdout().is_terminal())
}

fn next(args: NextArgs, out: &mut impl Write) -> Result<(), Failure> {
    let layout = layout(&args.layout)?;
    let format = encoding("--format", &args.format)?;
    let identity = match args.nodes.resolve(&layout)? {
        Some(nodes) => IdentityRequest::Nodes(nodes),
        None => IdentityRequest::Environment,
    };
    let generator = GeneratorRequest::new(layout.clone(), identity).resolve(CONNECTORS)?;
    eprintln!(
        "polyflake: layout {}, identity: {}",
        layout.name(),
        generator.identity_source()
    );
    // Streamed a block at a time: a large --count neither waits nor fills memory.
    let mut block = vec![0u64; args.count.min(4096)];
    let mut left = args.count;
    let mut first = true;
    let write = |out: &mut dyn Write, ids: &[u64], first: &mut bool| -> std::io::Result<()> {
        for &id in ids {
            if args.json {
                let sep = if std::mem::take(first) { "[" } else { "," };
                write!(out, "{sep}\"{}\"", show(id, format))?;
            } else {
                writeln!(out, "{}", show(id, format))?;
            }
        }
        Ok(())
    };
    while left > 0 {
        let ids = &mut block[..left.min(4096)];
        generator.fill(ids)?;
        write(out, ids, &mut first)?;
        left -= ids.len();
    }
    if args.json {
        writeln!(out, "{}]", if first { "[" } else { "" })?;
    }
    Ok(out.flush()?)
}

fn compose(args: ComposeArgs, out: &mut impl Write) -> Result<(), Failure> {
    let layout = layout(&args.layout)?;
    let timestamp = time::parse_timestamp(&args.timestamp).map_err(Failure::Usage)?;
    let nodes = args.nodes.resolve(&layout)?.unwrap_or_default();
    let id = layout.compose(timestamp, args.sequence, &nodes)?;
    let mut text = format!("{id}\n");
    if !args.quiet {
        text.push('\n');
        text.push_str(&render::breakdown(&layout, id, colour())?);
    }
    Ok(out.write_all(text.as_bytes())?)
}

fn decode(args: DecodeArgs, out: &mut impl Write) -> Result<(), Failure> {
    let layout = layout(&args.layout)?;
    let id = read(&args.id, encoding("--from", &args.from)?)?;
    let parts = layout
        .decode(id)
        .map_err(|e| Failure::core(format!("ID {}", args.id), e))?;
    let text = if args.json {
        format!("{}\n", render::decoded(&layout, id, &parts))
    } else {
        let mut rows = vec![
            ("id".to_owned(), id.to_string()),
            ("layout".to_owned(), layout.name().to_owned()),
            ("timestamp_ms".to_owned(), parts.timestamp_ms.to_string()),
            ("time".to_owned(), time::iso(parts.timestamp_ms)),
        ];
        rows.extend(
            parts
                .fields(&layout)
                .map(|(n, v)| (n.to_owned(), v.to_string())),
        );
        rows.push(("sequence".to_owned(), parts.sequence.to_string()));
        let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let mut text: String = rows
            .iter()
            .map(|(n, v)| format!("{n:<width$}  {v}\n"))
            .collect();
        text.push('\n');
        text.push_str(&render::breakdown(&layout, id, colour())?);
        text
    };
    Ok(out.write_all(text.as_bytes())?)
}

fn convert(args: ConvertArgs, out: &mut impl Write) -> Result<(), Failure> {
    let id = read(&args.id, encoding("--from", &args.from)?)?;
    Ok(writeln!(out, "{}", show(id, encoding("--to", &args.to)?))?)
}

/// clap's error as one line, with what it lists (the missing arguments).
fn usage_error(text: &str) -> String {
    let mut lines = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"));
    let first = lines.next().unwrap_or("invalid arguments");
    let first = first.trim_start_matches("error: ");
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        first.to_owned()
    } else {
        format!("{} {}", first, rest.join(", "))
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("polyflake: internal error: {info}");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("polyflake: {}", usage_error(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let result = match cli.command {
        Command::Next(args) => next(args, &mut out),
        Command::Compose(args) => compose(args, &mut out),
        Command::Decode(args) => decode(args, &mut out),
        Command::Convert(args) => convert(args, &mut out),
        Command::Layouts => out
            .write_all(render::layouts().as_bytes())
            .map_err(Failure::from),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve(args),
    };
    match result.and_then(|()| Ok(out.flush()?)) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading ends the output; that is not an error.
        Err(failure) if failure.is_reader_gone() => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("polyflake: {failure}");
            failure.exit_code()
        }
    }
}
