// The BullMQ oracle: what a real bullmq release does with a job scheduler (or, on 5.x, with a
// legacy repeatable job), step by step, on the Redis at EMQSIM_REDIS_URL.
//
// stdin:  {"package": npm name (optional, default "bullmq": the version pinned in package.json;
//          "bullmq-5-80-1" and the like are the aliases package.json pins for other releases),
//          "scenarios": [{"id": "...", "steps": [step, ...]}, ...]}
//   step  {"op": "upsert", "at": ms, "every": ms} (with optional "offset", "startDate", "limit",
//         "endDate") or {"op": "upsert", "at": ms, "pattern": "...", "tz": "..."}: the producer
//         calls Queue.upsertJobScheduler with the clock at `at`;
//         {"op": "add", "at": ms, "every": ms, ...}: the same options as a legacy repeatable job,
//         Queue.add("job", {}, {repeat: {...}}) (bullmq 5.x only; v6 removed it);
//         {"op": "pickup", "at": ms}: one worker asks for one job (Worker.getNextJob, not
//         blocking), with the clock at `at`; a job it gets is completed at once.
// stdout: {"bullmq": version, "answers": [[state, ...] per scenario]}, one state per step:
//   {"taken": {"id", "timestamp"} or null (pickups only), "score": the registry score or null,
//    "offset", "ic", "every", "pattern" (the scheduler hash's fields, numbers where numeric,
//    null when absent), "delayed": [[id, due ms], ...], "waiting": [id, ...]}
// (The marker is not reported: this worker never blocks on it, so BullMQ's "0" is never popped.)
//
// Only Date is faked (@sinonjs/fake-timers), so ioredis's own timers keep working. Each
// scenario gets a queue name of its own, and every key it made is deleted afterwards.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import IORedis from "ioredis";
import FakeTimers from "@sinonjs/fake-timers";

const require = createRequire(import.meta.url);
const url = process.env.EMQSIM_REDIS_URL;
if (!url) {
  console.error("bullmq.mjs needs EMQSIM_REDIS_URL (a Redis it may write to)");
  process.exit(2);
}

const input = JSON.parse(readFileSync(0, "utf8"));
const PACKAGE = input.package ?? "bullmq";
if (!/^bullmq(-\d+-\d+-\d+)?$/.test(PACKAGE)) {
  console.error(`package ${JSON.stringify(PACKAGE)} is not bullmq or one of its aliases bullmq-X-Y-Z`);
  process.exit(2);
}
const VERSION = require(`${PACKAGE}/package.json`).version;
const { Queue, Worker } = await import(PACKAGE);
const clock = FakeTimers.withGlobal(globalThis).install({ now: 0, toFake: ["Date"] });
const connection = new IORedis(url, { maxRetriesPerRequest: null });
const TOKEN = "oracle-worker";

function num(v) {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}

// A legacy repeatable job's registry member and job ids carry a hash of its options; they are
// reported under the scheduler's name "s" (`repeat:<hash>:<ms>` as `repeat:s:<ms>`).
const asScheduler = (legacy, id) => (legacy ? id.replace(/^repeat:[^:]+:(\d+)$/, "repeat:s:$1") : id);

async function state(prefix, legacy) {
  let member = "s";
  if (legacy) {
    const members = await connection.zrange(`${prefix}:repeat`, 0, -1);
    if (members.length > 1) throw new Error(`more than one repeatable job: ${members}`);
    member = members[0] ?? "s";
  }
  const [score, hash, delayed, waiting] = await Promise.all([
    connection.zscore(`${prefix}:repeat`, member),
    connection.hgetall(`${prefix}:repeat:${member}`),
    connection.zrange(`${prefix}:delayed`, 0, -1, "WITHSCORES"),
    connection.lrange(`${prefix}:wait`, 0, -1),
  ]);
  const id = (v) => asScheduler(legacy, v);
  const pairs = (flat, f) => {
    const out = [];
    for (let i = 0; i < flat.length; i += 2) out.push([id(flat[i]), f(Number(flat[i + 1]))]);
    return out;
  };
  return {
    score: num(score),
    offset: num(hash.offset),
    ic: num(hash.ic),
    every: num(hash.every),
    pattern: hash.pattern ?? null,
    delayed: pairs(delayed, (s) => Math.floor(s / 0x1000)),
    waiting: waiting.map(id).sort(),
  };
}

function repeatOpts(step) {
  const opts = {};
  for (const k of ["every", "offset", "pattern", "tz", "startDate", "limit", "endDate"]) {
    if (step[k] !== undefined && step[k] !== null) opts[k] = step[k];
  }
  // an explicit `"offset": 0` is passed as 0, so the oracle shows what BullMQ does with it
  if (step.offset === 0) opts.offset = 0;
  return opts;
}

async function scenario(sc, i) {
  const name = `emqsim-oracle-${process.pid}-${i}`;
  const prefix = `bull:${name}`;
  clock.setSystemTime(sc.steps[0].at);
  const queue = new Queue(name, { connection });
  const worker = new Worker(name, null, { connection, autorun: false });
  const out = [];
  const legacy = sc.steps[0].op === "add";
  try {
    for (const step of sc.steps) {
      clock.setSystemTime(step.at);
      if (step.op === "upsert") {
        await queue.upsertJobScheduler("s", repeatOpts(step), { name: "job", data: {} });
        out.push(await state(prefix, legacy));
      } else if (step.op === "add") {
        await queue.add("job", {}, { repeat: repeatOpts(step) });
        out.push(await state(prefix, legacy));
      } else if (step.op === "pickup") {
        const job = await worker.getNextJob(TOKEN, { block: false });
        let taken = null;
        if (job) {
          taken = { id: asScheduler(legacy, job.id), timestamp: job.timestamp };
          await job.moveToCompleted("done", TOKEN, false);
        }
        out.push({ taken, ...(await state(prefix, legacy)) });
      } else {
        throw new Error(`unknown op ${JSON.stringify(step.op)} in scenario ${sc.id}`);
      }
    }
  } finally {
    await worker.close(true);
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    const left = await connection.keys(`${prefix}:*`);
    if (left.length) await connection.del(...left);
  }
  return out;
}

const answers = [];
try {
  for (const [i, sc] of input.scenarios.entries()) answers.push(await scenario(sc, i));
} finally {
  await connection.quit();
  clock.uninstall();
}
process.stdout.write(JSON.stringify({ bullmq: VERSION, answers }));
