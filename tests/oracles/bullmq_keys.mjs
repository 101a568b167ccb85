// Every key the real BullMQ leaves, step by step: the same steps as bullmq.mjs (an upsert by
// Queue.upsertJobScheduler, a pickup by Worker.getNextJob then job.moveToCompleted), with the
// clock faked (@sinonjs/fake-timers, Date only), on the Redis at EMQSIM_REDIS_URL. After each
// step every key of the queue is reported as data: {name relative to the queue's prefix:
// [type, value]}, a hash's fields sorted, a sorted set's members with the scores as Redis
// writes them, a stream's entries without their ids (those are the server's clock).
// stdin: {"token": worker token, "scenarios": [{"id", "steps"}]}; stdout: {"bullmq", "dumps"}.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import IORedis from "ioredis";
import FakeTimers from "@sinonjs/fake-timers";

const require = createRequire(import.meta.url);
const url = process.env.EMQSIM_REDIS_URL;
if (!url) {
  console.error("bullmq_keys.mjs needs EMQSIM_REDIS_URL (a Redis it may write to)");
  process.exit(2);
}
const input = JSON.parse(readFileSync(0, "utf8"));
const VERSION = require("bullmq/package.json").version;
const { Queue, Worker } = await import("bullmq");
const clock = FakeTimers.withGlobal(globalThis).install({ now: 0, toFake: ["Date"] });
const connection = new IORedis(url, { maxRetriesPerRequest: null });

async function dump(prefix) {
  const keys = (await connection.keys(`${prefix}*`)).sort();
  const out = {};
  for (const key of keys) {
    const type = await connection.type(key);
    let value;
    if (type === "string") value = await connection.get(key);
    else if (type === "hash") value = Object.entries(await connection.hgetall(key)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    else if (type === "zset") {
      const flat = await connection.zrange(key, 0, -1, "WITHSCORES");
      value = [];
      for (let i = 0; i < flat.length; i += 2) value.push([flat[i], flat[i + 1]]);
    } else if (type === "list") value = await connection.lrange(key, 0, -1);
    else if (type === "set") value = (await connection.smembers(key)).sort();
    else if (type === "stream") value = (await connection.xrange(key, "-", "+")).map(([, fields]) => fields);
    else value = null;
    out[key.slice(prefix.length)] = [type, value];
  }
  return out;
}

async function scenario(sc, i) {
  const name = `emqsim-keys-${process.pid}-${i}`;
  const prefix = `bull:${name}:`;
  clock.setSystemTime(sc.steps[0].at);
  const queue = new Queue(name, { connection });
  const worker = new Worker(name, null, { connection, autorun: false });
  const out = [];
  try {
    for (const step of sc.steps) {
      clock.setSystemTime(step.at);
      if (step.op === "upsert") {
        const opts = {};
        for (const k of ["every", "offset", "pattern", "tz", "startDate", "limit", "endDate"]) {
          if (step[k] !== undefined && step[k] !== null) opts[k] = step[k];
        }
        await queue.upsertJobScheduler("s", opts, { name: "job", data: {} });
      } else {
        const job = await worker.getNextJob(input.token, { block: false });
        if (job) await job.moveToCompleted("done", input.token, false);
      }
      out.push(await dump(prefix));
    }
  } finally {
    await worker.close(true);
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    const left = await connection.keys(`${prefix}*`);
    if (left.length) await connection.del(...left);
  }
  return out;
}

const dumps = [];
try {
  for (const [i, sc] of input.scenarios.entries()) dumps.push(await scenario(sc, i));
} finally {
  await connection.quit();
  clock.uninstall();
}
process.stdout.write(JSON.stringify({ bullmq: VERSION, dumps }));
