// Ask cron-parser (the version BullMQ pins) for the runs of cron expressions in a time zone.
//
// stdin:  [{"expr": "30 1 * * *", "tz": "America/New_York", "from": ms, "until": ms}, ...]
// stdout: [{"runs": [ms, ...], "chain": [ms, ...]}, ...]; where cron-parser throws, the runs before
//         the throw and its message: "runs_error" / "chain_error" (a bad expression: "error").
//
// "runs": one CronExpressionParser.parse(expr, {currentDate: from, tz}) iterated with next(),
//         every run strictly after `from` and before `until`.
// "chain": what a BullMQ job scheduler gets when each job is taken on time: a fresh parse
//         from the previous run, one next() each (bullmq's defaultRepeatStrategy).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { CronExpressionParser } = require("cron-parser");
const LIMIT = 5000; // runs per case: a window is a few days at most

function runs({ expr, tz, from, until }, out) {
  const it = CronExpressionParser.parse(expr, { currentDate: new Date(from), tz });
  for (let t = it.next().getTime(); t < until && out.length < LIMIT; t = it.next().getTime()) out.push(t);
}

function chain({ expr, tz, from, until }, out) {
  let prev = from;
  while (out.length < LIMIT) {
    const t = CronExpressionParser.parse(expr, { currentDate: new Date(prev), tz }).next().getTime();
    if (t >= until) break;
    out.push(t);
    prev = t;
  }
}

const message = (e) => String(e && e.message ? e.message : e);

// the runs found before cron-parser threw (if it did), and its message
function collect(walk, q, answer, key) {
  const out = [];
  try {
    walk(q, out);
  } catch (e) {
    answer[`${key}_error`] = message(e);
  }
  answer[key] = out;
}

const questions = JSON.parse(readFileSync(0, "utf8"));
const answers = questions.map((q) => {
  try {
    CronExpressionParser.parse(q.expr, { tz: q.tz });
  } catch (e) {
    return { error: message(e) };
  }
  const answer = {};
  collect(runs, q, answer, "runs");
  collect(chain, q, answer, "chain");
  return answer;
});
process.stdout.write(JSON.stringify(answers) + "\n");
