// make screenshots: PNGs of `arbiter view` for the README, 1280 x 800, taken by headless
// chromium from the browser tests' own fixtures (made offline): the runs list, the case table
// of the 10,000-case run filtered to position-inconsistent cases, one such case, and the
// blind labelling page.
// usage: node tests/browser/screenshots.mjs path/to/arbiter path/to/judge_sim [OUTDIR]
import { Suite, assert } from './lib.mjs';
import { bigRun, labelRun, caseIds, PI_WHERE } from './fixtures.mjs';
import fs from 'node:fs';
import path from 'node:path';

const out = path.resolve(process.argv[4] || 'docs/screenshots');
const s = new Suite('screenshots');
let big = null;
let view = null;
let pi = [];

async function shot(t, url, file, { want = 200 } = {}) {
    const page = await t.page({ width: 1280, height: 800 });
    await t.goto(page, url, want);
    await t.settle(page, 200);
    fs.mkdirSync(out, { recursive: true });
    await page.screenshot({ path: path.join(out, file), type: 'png' });
    console.log(`  ${path.relative(process.cwd(), path.join(out, file))}`);
    // A picture is still worth taking when the page logged an error: say so, do not fail.
    for (const p of new Set(t.problems)) console.log(`  warning: ${p.slice(0, 200)}`);
    t.problems.length = 0;
    return page;
}

s.test('fixture: the 10,000-case judged run, and a smoke run of it', async () => {
    big = await bigRun(s);
    pi = caseIds(s, big.db, 1, PI_WHERE);
    // A second run, so the runs list has two to compare: the first 2,000 cases, another
    // blinding seed, judged by a judge_sim on a new port.
    const sim = await s.startSim([], 'sim-smoke');
    s.exec([s.arb, 'run', path.join(path.dirname(big.db), 'suite.json'), '--db', big.db, '--limit', '2000',
        '--seed', '8', '--judge-url', `http://127.0.0.1:${sim.port}/v1`, '--no-progress'],
    { env: { ARB_TEST_JUDGE_KEY: 'k-browser-tests-0123' } });
    await s.stopServer(sim);
    // Started beside the database so that the page header names it as a user would.
    view = await s.startView({ db: path.basename(big.db), cwd: path.dirname(big.db) });
});

s.test('runs.png: the runs list', async (t) => {
    assert.ok(view, 'no server');
    await shot(t, view.url('/'), 'runs.png');
});

s.test('cases.png: the case table filtered to position-inconsistent cases', async (t) => {
    assert.ok(view, 'no server');
    await shot(t, view.url('/runs/1/cases?flag=pi'), 'cases.png');
});

s.test('case.png: one position-inconsistent case', async (t) => {
    assert.ok(view, 'no server');
    const first = pi[0];
    await shot(t, view.url(`/runs/1/cases/${encodeURIComponent(first)}?flag=pi`), 'case.png');
    await s.stopServer(view);
});

s.test('label.png: the blind labelling page', async (t) => {
    const fx = await labelRun(s);
    const v = await s.startView({ db: path.basename(fx.db), cwd: path.dirname(fx.db), extra: ['--label'],
        name: 'view-label' });
    await shot(t, v.url('/runs/1/label?annotator=ann1'), 'label.png');
    await s.stopServer(v);
});

await s.run();
