// An order service in Node: fetches ID batches from the replicas round
// robin, moves to the next replica on 503 or no answer, and inserts orders
// into PostgreSQL with pg. IDs stay strings (never a JS number) on their way
// from the service's JSON to the BIGINT column. Every answer is recorded as
// one JSON line for the run's checks. Stops at SIGTERM after the batch in hand.
import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";

const { values: args } = parseArgs({
  options: {
    replicas: { type: "string" },
    dsn: { type: "string" },
    out: { type: "string" },
    name: { type: "string", default: "node" },
    count: { type: "string", default: "100" },
    "pause-ms": { type: "string", default: "5" },
  },
});
let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
});

const replicas = args.replicas.split(",").map((r) => r.split("="));
const out = createWriteStream(args.out);
const db = new pg.Client({ connectionString: args.dsn });
await db.connect();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let turn = 0;
while (!stopping) {
  const [name, address] = replicas[turn++ % replicas.length];
  const record = { client: args.name, replica: name, sent: Date.now() };
  let status;
  let body;
  try {
    const response = await fetch(`http://${address}/v1/ids?count=${args.count}`, {
      signal: AbortSignal.timeout(1000),
    });
    status = response.status;
    body = await response.json();
  } catch (e) {
    status = 0;
    body = { code: "NO_ANSWER", message: String(e) };
  }
  record.received = Date.now();
  record.status = status;
  if (status !== 200) {
    record.code = body.code ?? "?";
    out.write(JSON.stringify(record) + "\n");
    continue;
  }
  record.ids = body.ids;
  const created = new Date();
  try {
    await db.query(
      "INSERT INTO orders (id, created_at, client, replica) " +
        "SELECT unnest($1::bigint[]), $2, $3, $4",
      [body.ids, created, args.name, name],
    );
    record.inserted = body.ids.length;
  } catch (e) {
    if (e.code !== "23505") throw e;
    record.inserted = 0;
    record.db_error = `23505 ${e.message}`;
  }
  out.write(JSON.stringify(record) + "\n");
  await sleep(Number(args["pause-ms"]));
}
await db.end();
out.end();
