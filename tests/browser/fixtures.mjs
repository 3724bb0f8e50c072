// tests/browser/fixtures.mjs: the run databases the browser tests browse, made offline by the
// tests themselves with `arbiter run` (and tests/judge_sim as the judge on 127.0.0.1):
//
//   bigRun      10,000 small cases, two systems whose outputs differ, one rubric criterion
//               without a check, so every case goes to the judge in both orders; judge_sim's
//               answers come from a hash of each request, so about two cases in three are
//               position-inconsistent.  About 4 s here (20,000 judge requests).
//   payloadRun  4 cases whose case ids, prompts, outputs, task, suite and system names carry
//               script payloads (PAYLOADS); decided by a check, no judge.
//   labelRun    8 judged cases for labelling, with two criteria without checks and system
//               names found nowhere else (LABEL_SYSTEMS), so a page that shows one is caught.
//
// Each returns {db, run, ...} and leaves the database closed (no server holds it).

import fs from 'node:fs';
import path from 'node:path';

export const PAYLOADS = [
    '<script>window.__pwned=1</script>',
    '<img src=x onerror="window.__pwned=1">',
    '[x](javascript:window.__pwned=1)',
    '"><svg onload=window.__pwned=1>',
];

// The systems of the labelling run: words that no output, prompt or page text holds.
export const LABEL_SYSTEMS = ['zephyr-sys-41', 'quokka-sys-97'];

const JUDGE_KEY = 'k-browser-tests-0123';

function jsonl(file, rows) {
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));
}

// The judge part of a suite, pointed at a judge_sim on port.
function judge(port, concurrency = 32) {
    return {
        provider: 'openai', base_url: `http://127.0.0.1:${port}/v1`, model: 'sim-1',
        api_key_env: 'ARB_TEST_JUDGE_KEY', concurrency, timeout_s: 10, max_retries: 4,
    };
}

// `arbiter run suite --db db` with a judge_sim started for it (stopped after).
async function judgedRun(s, dir, suite, db) {
    const sim = await s.startSim([], `sim-${path.basename(dir)}`);
    try {
        suite.judge = judge(sim.port);
        fs.writeFileSync(path.join(dir, 'suite.json'), JSON.stringify(suite, null, 1));
        s.exec([s.arb, 'run', path.join(dir, 'suite.json'), '--db', db, '--no-progress'],
            { env: { ARB_TEST_JUDGE_KEY: JUDGE_KEY } });
    } finally {
        await s.stopServer(sim);
    }
}

// The case ids of run in reading order (cases.seq) that satisfy where (SQL over v_verdicts v).
export function caseIds(s, db, run, where = '1') {
    return s.sql(db, `SELECT v.case_id FROM v_verdicts v JOIN cases c ON c.run = v.run AND ` +
        `c.case_id = v.case_id WHERE v.run = ${Number(run)} AND (${where}) ORDER BY c.seq, v.case_id`)
        .map((r) => r[0]);
}

export const PI_WHERE = "json_extract(v.comparison_json, '$.judge.position_inconsistent') = 1";

export async function bigRun(s, n = 10000) {
    const dir = path.join(s.dir, 'big');
    fs.mkdirSync(dir, { recursive: true });
    const cases = [], alpha = [], beta = [];
    const words = ['plainly', 'carefully', 'roughly', 'exactly', 'quickly', 'honestly'];
    for (let i = 0; i < n; i++) {
        const id = `c${String(i).padStart(5, '0')}`;
        const x = i, y = (i * 7) % 13, sum = x + y;
        cases.push({ id, prompt: `What is ${x} plus ${y}? Answer in one sentence.` });
        alpha.push({ id, output: `The sum of ${x} and ${y} is ${sum}, computed ${words[i % 6]}.` });
        beta.push({ id, output: `I think ${x} plus ${y} gives ${i % 3 === 0 ? sum + 1 : sum}, ` +
            `said ${words[(i + 2) % 6]}.` });
    }
    jsonl(path.join(dir, 'cases.jsonl'), cases);
    jsonl(path.join(dir, 'alpha.jsonl'), alpha);
    jsonl(path.join(dir, 'beta.jsonl'), beta);
    const db = path.join(dir, 'big.db');
    const t0 = Date.now();
    await judgedRun(s, dir, {
        name: 'browse-10k', seed: 7, task: 'Add the two numbers and say the sum.',
        systems: { alpha: 'alpha.jsonl', beta: 'beta.jsonl' },
        rubric: { content: [{ name: 'correctness', description: 'the sum is right' }], structure: [] },
        cases: 'cases.jsonl',
    }, db);
    return { db, run: 1, n, seconds: (Date.now() - t0) / 1000, systems: ['alpha', 'beta'] };
}

export async function payloadRun(s) {
    const dir = path.join(s.dir, 'payload');
    fs.mkdirSync(dir, { recursive: true });
    const P = PAYLOADS;
    const ids = [P[0], `id ${P[1]}`, `id ${P[2]}`, `id ${P[3]}`];
    const cases = [], a = [], b = [];
    ids.forEach((id, i) => {
        cases.push({ id, prompt: `Prompt ${P[i % 4]} and ${P[(i + 1) % 4]}` });
        a.push({ id, output: `First says ${P[i % 4]}\n${P[(i + 2) % 4]}` });
        b.push({ id, output: `Second says ${P[(i + 1) % 4]}\n${P[(i + 3) % 4]}` });
    });
    jsonl(path.join(dir, 'cases.jsonl'), cases);
    jsonl(path.join(dir, 'a.jsonl'), a);
    jsonl(path.join(dir, 'b.jsonl'), b);
    // Names no output holds whole: the labelling page hides a system name wherever it occurs.
    const systems = [`sys-a ${P[3]}`, `sys-b ${P[0]}`];
    fs.writeFileSync(path.join(dir, 'suite.json'), JSON.stringify({
        name: `payload ${P[0]}`, seed: 1, task: `Task ${P[1]}`,
        systems: { [systems[0]]: 'a.jsonl', [systems[1]]: 'b.jsonl' },
        rubric: { content: [{ name: 'says', check: { op: 'contains', expected: 'First says' } }], structure: [] },
        cases: 'cases.jsonl',
    }));
    const db = path.join(dir, 'payload.db');
    s.exec([s.arb, 'run', path.join(dir, 'suite.json'), '--db', db, '--no-progress']);
    return { db, run: 1, ids, systems, cases, outputs: { [systems[0]]: a, [systems[1]]: b } };
}

export async function labelRun(s, n = 8) {
    const dir = path.join(s.dir, 'label');
    fs.mkdirSync(dir, { recursive: true });
    const cases = [], a = [], b = [];
    const fruit = ['apples', 'pears', 'plums', 'figs', 'dates', 'limes', 'kiwis', 'grapes', 'mangos'];
    for (let i = 0; i < n; i++) {
        const id = `q${i + 1}`;
        cases.push({ id, prompt: `Name a fact about ${fruit[i % 9]}.` });
        a.push({ id, output: `Response text one: ${fruit[i % 9]} grow on trees in warm places.` });
        b.push({ id, output: `Response text two: ${fruit[i % 9]} are sold by weight at markets.` });
    }
    jsonl(path.join(dir, 'cases.jsonl'), cases);
    jsonl(path.join(dir, 'one.jsonl'), a);
    jsonl(path.join(dir, 'two.jsonl'), b);
    const db = path.join(dir, 'label.db');
    await judgedRun(s, dir, {
        name: 'label-fixture', seed: 5, task: 'State one true fact.',
        systems: { [LABEL_SYSTEMS[0]]: 'one.jsonl', [LABEL_SYSTEMS[1]]: 'two.jsonl' },
        rubric: {
            content: [{ name: 'accuracy', description: 'the fact is true' }],
            structure: [{ name: 'tone', description: 'plain and polite' }],
        },
        cases: 'cases.jsonl',
    }, db);
    const out = {};
    for (const [file, sys] of [['one.jsonl', LABEL_SYSTEMS[0]], ['two.jsonl', LABEL_SYSTEMS[1]]]) {
        out[sys] = Object.fromEntries((file === 'one.jsonl' ? a : b).map((r) => [r.id, r.output]));
    }
    return { db, run: 1, n, dir, systems: LABEL_SYSTEMS, criteria: ['accuracy', 'tone'], outputs: out };
}
