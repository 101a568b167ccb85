// `make bench`'s real BullMQ: N on-time pickups of one `every` job scheduler, on the Redis at
// EMQSIM_REDIS_URL, with the same work emqsim's `trace --every 15m --fires N` does.
//
// argv:   N [every ms, default 900000]
// stdout: {"bullmq": version, "fires": N, "ms": wall ms of the pickups, "first": ms, "last": ms}
//
// A worker asks for one job at a time (Worker.getNextJob, not blocking) with the clock at the
// job's run time, and completes it at once; each pickup makes the scheduler's next job. Only
// Date is faked (@sinonjs/fake-timers), as bullmq.mjs does, so ioredis's timers keep working.
// The queue has a name of its own and every key it made is deleted afterwards.
import { createRequire } from "node:module";
import IORedis from "ioredis";
import FakeTimers from "@sinonjs/fake-timers";

const require = createRequire(import.meta.url);
const url = process.env.EMQSIM_REDIS_URL;
const n = Number(process.argv[2]);
const every = Number(process.argv[3] ?? 900000);
if (!url || !Number.isInteger(n) || n < 1 || !Number.isInteger(every) || every < 1) {
  console.error("usage: EMQSIM_REDIS_URL=redis://... node bench_bullmq.mjs N [every ms]");
  process.exit(2);
}
const VERSION = require("bullmq/package.json").version;
const { Queue, Worker } = await import("bullmq");
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);   // 2026-11-30 09:00 UTC, emqsim's bench start
const clock = FakeTimers.withGlobal(globalThis).install({ now: T0, toFake: ["Date"] });
const connection = new IORedis(url, { maxRetriesPerRequest: null });
const name = `emqsim-bench-${process.pid}`;
const queue = new Queue(name, { connection });
const worker = new Worker(name, null, { connection, autorun: false });
let first = null, last = null, wall = 0;
try {
  await queue.upsertJobScheduler("reports", { every }, { name: "job", data: {} });
  const t = performance.now();
  for (let k = 0; k < n; k++) {
    clock.setSystemTime(T0 + k * every);
    const job = await worker.getNextJob("bench-worker", { block: false });
    if (!job) throw new Error(`no job ready at pickup ${k + 1} (${new Date(T0 + k * every).toISOString()})`);
    first ??= job.timestamp + (job.opts.delay ?? 0);
    last = T0 + k * every;
    await job.moveToCompleted("done", "bench-worker", false);
  }
  wall = performance.now() - t;
} finally {
  await worker.close(true);
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  const left = await connection.keys(`bull:${name}:*`);
  if (left.length) await connection.del(...left);
  await connection.quit();
  clock.uninstall();
}
process.stdout.write(JSON.stringify({ bullmq: VERSION, fires: n, ms: Math.round(wall), first, last }) + "\n");
