// Blind labelling with `arbiter view --label` in headless chromium: two annotators label five
// pairs each through the form; the pages before saving never hold a system name, the judge's
// words or the outputs the wrong way round; the reveal page names the systems; the labels
// table holds exactly what was chosen; /runs/1/labels shows the annotators' agreement as
// `arbiter calibrate` computes it; a POST without the session token, or with another Host,
// gets 403 and writes nothing; --annotator skips the name form.
// usage: node tests/browser/label.test.mjs path/to/arbiter path/to/judge_sim
import { Suite, assert, request, formBody } from './lib.mjs';
import { labelRun, caseIds } from './fixtures.mjs';
import fs from 'node:fs';
import path from 'node:path';

const s = new Suite('label');
let fx = null;   // the fixture
let view = null; // arbiter view --label over it
const need = () => assert.ok(view, 'no view server (the fixture test failed)');

// What each annotator chooses, pair by pair (as shown: A is the response shown first).
const PLAN = {
    ann1: [
        { choice: 'A', crit: { accuracy: 'A', tone: 'tie' } },
        { choice: 'B', crit: { accuracy: 'B', tone: 'B' } },
        { choice: 'tie', crit: { accuracy: 'tie', tone: 'A' } },
        { choice: 'A', crit: { accuracy: 'A', tone: 'A' } },
        { choice: 'B', crit: { accuracy: 'A', tone: 'B' } },
    ],
    ann2: [
        { choice: 'A', crit: { accuracy: 'A', tone: 'A' } },
        { choice: 'B', crit: { accuracy: 'B', tone: 'tie' } },
        { choice: 'A', crit: { accuracy: 'A', tone: 'A' } },
        { choice: 'A', crit: { accuracy: 'B', tone: 'A' } },
        { choice: 'tie', crit: { accuracy: 'tie', tone: 'B' } },
    ],
};
const noteOf = (ann, i) => `note ${ann} #${i + 1}: second paragraph reads better`;
const labelled = { ann1: [], ann2: [] }; // case ids in the order each annotator labelled them

// The pair of a case as its blinding row orders it: [system_a (shown first), system_b].
function pairOf(caseId) {
    const r = s.sql(fx.db, `SELECT system_a, system_b FROM blinding WHERE run = 1 AND case_id = '${caseId}'`);
    assert.eq(r.length, 1, `blinding rows of ${caseId}`);
    return r[0];
}

s.test('fixture: a judged run of 8 cases for labelling', async () => {
    fx = await labelRun(s);
    view = await s.startView({ db: fx.db, extra: ['--label'] });
});

s.test('without an annotator the labelling page asks for a name', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/label'));
    assert.eq(await t.count(page, 'form#annotator'), 1, 'form#annotator');
    assert.eq(await t.count(page, 'form#label-form'), 0, 'form#label-form before a name is given');
    const html = await page.content();
    for (const sys of fx.systems) assert.notIncludes(html, sys, 'the annotator form');
});

// Click a radio as a person would: open the <details> that hides it first, if any.
async function pick(page, selector) {
    const el = await page.$(selector);
    assert.ok(el, `no ${selector}`);
    const closed = await el.evaluate((e) => {
        const d = e.closest('details');
        return d !== null && !d.open;
    });
    if (closed) {
        const summary = await el.evaluateHandle((e) => e.closest('details').querySelector('summary'));
        await summary.click();
    }
    await el.click();
    assert.ok(await el.evaluate((e) => e.checked), `${selector} is not checked after a click`);
}

// Label five pairs as ann through the form, starting from the name form.
async function labelFive(t, ann) {
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/label'));
    await page.type('form#annotator [name="annotator"]', ann);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
    const order = caseIds(s, fx.db, 1);
    for (let i = 0; i < 5; i++) {
        const u = new URL(page.url());
        assert.eq(u.pathname, '/runs/1/label', `labelling page ${i + 1} path`);
        assert.eq(u.searchParams.get('annotator'), ann, `annotator in ${page.url()}`);
        // The page as served and as the browser holds it: no system name, no judge words.
        const served = (await request(page.url())).body;
        const html = await page.content();
        const caseId = await page.$eval('form#label-form [name="case"]', (e) => e.value);
        assert.eq(caseId, order[i], `the pair offered ${i + 1}: the run's cases in reading order`);
        for (const sys of fx.systems) {
            assert.notIncludes(served, sys, `the labelling page of ${caseId} as served`);
            assert.notIncludes(html, sys, `the labelling page of ${caseId} in the browser`);
        }
        const reasons = s.sql(fx.db, `SELECT json_extract(answer_json, '$.reasoning') FROM judgments ` +
            `WHERE run = 1 AND case_id = '${caseId}' AND valid = 1`).map((r) => r[0]).filter(Boolean);
        assert.ok(reasons.length > 0, `the judge's reasoning on ${caseId} in the database`);
        for (const why of reasons) assert.notIncludes(html, why, `the judge's reasoning on the labelling page of ${caseId}`);
        // Response A is the output of the system the blind order shows first.
        const [first, second] = pairOf(caseId);
        assert.includes(await t.text(page, '#response-a'), fx.outputs[first][caseId], `#response-a of ${caseId}`);
        assert.includes(await t.text(page, '#response-b'), fx.outputs[second][caseId], `#response-b of ${caseId}`);
        assert.eq(await t.count(page, '#queue-progress'), 1, '#queue-progress');
        assert.eq(await page.$eval('form#label-form', (f) => f.method.toLowerCase()), 'post', 'form#label-form method');
        const tok = await page.$eval('meta[name="arbiter-token"]', (m) => m.content);
        assert.eq(await page.$eval('form#label-form [name="token"]', (e) => e.value), tok, 'the form carries the token');
        // Choose as a person would: click the radios, type the note, submit.
        const plan = PLAN[ann][i];
        await pick(page, `form#label-form input[type="radio"][name="choice"][value="${plan.choice}"]`);
        for (const [crit, v] of Object.entries(plan.crit))
            await pick(page, `form#label-form input[type="radio"][name="crit.${crit}"][value="${v}"]`);
        await page.type('form#label-form [name="note"]', noteOf(ann, i));
        const submit = 'form#label-form button[type="submit"], form#label-form input[type="submit"]';
        const saved = await t.clickNav(page, submit);
        if (saved.status() !== 200) {
            t.expectStatus(saved.status(), saved.url());
            assert.fail(`saving the label of ${caseId}: HTTP ${saved.status()}: ${(await saved.text()).slice(0, 200)}`);
        }
        // The reveal page: /runs/1/label/CASE?annotator=ANN, the systems named.
        const r = new URL(page.url());
        assert.eq(decodeURIComponent(r.pathname), `/runs/1/label/${caseId}`, 'after saving: the reveal page');
        assert.eq(r.searchParams.get('annotator'), ann, 'the reveal page keeps the annotator');
        const rev = await t.text(page, '#revealed');
        for (const sys of fx.systems) assert.includes(rev, sys, `#revealed of ${caseId} names each system`);
        labelled[ann].push(caseId);
        if (i < 4) await t.clickNav(page, 'a#label-next');
    }
}

s.test('ann1 labels five pairs through the form, blind until saved', async (t) => {
    need();
    await labelFive(t, 'ann1');
});

s.test('ann2 labels the same five pairs', async (t) => {
    need();
    await labelFive(t, 'ann2');
    assert.deepEq(labelled.ann2, labelled.ann1, 'the pairs ann2 was offered');
});

s.test('the labels table holds the ten labels as chosen', async () => {
    need();
    const rows = s.sql(fx.db, 'SELECT annotator, case_id, system_a, system_b, shown_first, choice, ' +
        'winner, criteria_json, note FROM labels WHERE run = 1 ORDER BY annotator, case_id');
    assert.eq(rows.length, 10, 'rows of labels');
    for (const ann of ['ann1', 'ann2']) {
        labelled[ann].forEach((caseId, i) => {
            const row = rows.find((r) => r[0] === ann && r[1] === caseId);
            assert.ok(row, `no label of ${ann} for ${caseId}`);
            const [, , sa, sb, shown, choice, winner, crit, note] = row;
            const [first, second] = pairOf(caseId);
            const plan = PLAN[ann][i];
            assert.deepEq([sa, sb], [first, second], `${ann} ${caseId}: the pair`);
            assert.eq(shown, first, `${ann} ${caseId}: shown_first is the blind order's A`);
            assert.eq(choice, plan.choice, `${ann} ${caseId}: choice`);
            const want = plan.choice === 'A' ? first : plan.choice === 'B' ? second : 'TIE';
            assert.eq(winner, want, `${ann} ${caseId}: winner`);
            assert.deepEq(JSON.parse(crit || 'null'), plan.crit, `${ann} ${caseId}: criteria_json`);
            assert.eq(note, noteOf(ann, i), `${ann} ${caseId}: note`);
        });
    }
});

// The figures `arbiter calibrate --run 1` gives for labels (JSON): on a copy of the database.
function calibrate(args, name) {
    const copy = path.join(s.dir, `${name}.db`);
    s.exec(['sqlite3', fx.db, `.backup '${copy}'`]);
    const r = s.exec([s.arb, 'calibrate', '--run', '1', ...args, '--db', copy, '--format', 'json']);
    return JSON.parse(r.stdout);
}

// The labels of the table as the JSONL calibrate --run reads: one list of systems per case.
function labelsJsonl() {
    const rows = s.sql(fx.db, "SELECT case_id, json_group_array(CASE winner WHEN 'TIE' THEN 'tie' " +
        'ELSE winner END) FROM (SELECT * FROM labels WHERE run = 1 ORDER BY case_id, annotator) GROUP BY case_id');
    const file = path.join(s.dir, 'labels.jsonl');
    fs.writeFileSync(file, rows.map(([id, h]) => JSON.stringify({ id, human: JSON.parse(h) }) + '\n').join(''));
    return file;
}

// A figure of #agreement: span#ID with its exact value in data-value and, as text, rounded.
async function figure(page, id) {
    const f = await page.$eval('#agreement', (e, i) => {
        const el = e.querySelector(`#${i}`);
        return el && { value: el.getAttribute('data-value'), text: el.textContent };
    }, id);
    assert.ok(f, `no #${id} in #agreement`);
    assert.ok(f.value !== null, `#${id} has no data-value`);
    const text = Number(f.text.trim());
    assert.near(text, Number(f.value), 0.0005 + 1e-12, `#${id}: its text against its data-value`);
    return Number(f.value);
}

s.test('/runs/1/labels lists the labels and the agreement calibrate computes', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/labels'));
    const body = await page.evaluate(() => document.body.textContent);
    for (const ann of ['ann1', 'ann2']) {
        assert.includes(body, ann, 'the labels page names each annotator');
        for (let i = 0; i < 5; i++) assert.includes(body, noteOf(ann, i), 'the labels page shows each note');
    }
    assert.eq(await t.count(page, '#agreement'), 1, '#agreement with two annotators');
    // Independent of --labels-from-db: the table's labels written as JSONL by hand.
    const byHand = calibrate([labelsJsonl()], 'byhand');
    assert.near(await figure(page, 'annotator-kappa'), byHand.human.kappa, 1e-12,
        '#annotator-kappa against calibrate --run 1 LABELS.jsonl (human.kappa)');
    assert.near(await figure(page, 'annotator-alpha'), byHand.human.alpha, 1e-12,
        '#annotator-alpha against calibrate (human.alpha)');
    assert.near(await figure(page, 'verdict-kappa'), byHand.combined.kappa, 1e-12,
        '#verdict-kappa against calibrate (combined.kappa: the run\'s verdicts against the labels)');
    // The same figures from the database itself, with --labels-from-db.
    const fromDb = calibrate(['--labels-from-db'], 'fromdb');
    assert.near(await figure(page, 'annotator-kappa'), fromDb.human.kappa, 1e-12,
        '#annotator-kappa against calibrate --run 1 --labels-from-db (human.kappa)');
    assert.near(await figure(page, 'verdict-kappa'), fromDb.combined.kappa, 1e-12,
        '#verdict-kappa against calibrate --run 1 --labels-from-db (combined.kappa)');
    // The round trip: the labels made in the page, exported, calibrated from the file, give
    // the study calibrate gives from the database (every figure, not only the page's).
    const exported = path.join(s.dir, 'exported.jsonl');
    s.exec([s.arb, 'export', '1', '--labels', '-o', exported, '--db', fx.db]);
    assert.eq(fs.readFileSync(exported, 'utf8').trim().split('\n').length, 5,
        'export --labels: one line per labelled case');
    const fromFile = calibrate([exported], 'exported');
    const strip = (x) => { const y = { ...x }; delete y.labels; delete y.labels_sha256; return y; };
    assert.eq(JSON.stringify(strip(fromFile.combined)), JSON.stringify(strip(fromDb.combined)),
        'calibrate on the exported file: the same combined figures as --labels-from-db');
    assert.eq(JSON.stringify(fromFile.human), JSON.stringify(fromDb.human),
        'calibrate on the exported file: the same annotator figures as --labels-from-db');
    assert.near(await figure(page, 'annotator-kappa'), fromFile.human.kappa, 1e-12,
        '#annotator-kappa against calibrate --run 1 on the exported file');
    assert.near(await figure(page, 'verdict-kappa'), fromFile.combined.kappa, 1e-12,
        '#verdict-kappa against calibrate --run 1 on the exported file');
});

// The hidden inputs of form#id in html, as {name: value} (attributes in any order).
function hiddenFields(html, id) {
    const at = html.indexOf(`id="${id}"`);
    assert.ok(at >= 0, `no form#${id} in the page`);
    const form = html.slice(at, html.indexOf('</form>', at));
    const out = {};
    const unq = (v) => v.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    for (const m of form.matchAll(/<input\b[^>]*>/g)) {
        const a = Object.fromEntries([...m[0].matchAll(/([a-z-]+)="([^"]*)"/g)].map((x) => [x[1], unq(x[2])]));
        if (a.type === 'hidden' && a.name) out[a.name] = a.value ?? '';
    }
    return out;
}

function labelCount(where = '1') {
    return Number(s.sql(fx.db, `SELECT count(*) FROM labels WHERE ${where}`)[0][0]);
}

s.test('a POST without the session token gets 403 and writes nothing', async () => {
    need();
    const before = labelCount();
    const url = view.url('/runs/1/label');
    const tok = /<meta name="arbiter-token" content="([0-9a-f]+)"/.exec((await request(view.url('/'))).body);
    assert.ok(tok, 'the session token in the page');
    // The fields the labelling form of ann3 carries (token, case and whatever else it
    // holds hidden), less the token, plus a choice.
    const form = (await request(view.url('/runs/1/label?annotator=ann3'))).body;
    const hidden = hiddenFields(form, 'label-form');
    assert.eq(hidden.token, tok[1], 'the form\'s token is the page\'s');
    assert.eq(hidden.annotator, 'ann3', 'the form\'s annotator');
    const fields = { ...hidden, choice: 'A', note: 'forged' };
    delete fields.token;
    const post = (f, headers = {}) => request(url, {
        method: 'POST', body: formBody(f),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    });
    let r = await post(fields);
    assert.eq(r.status, 403, 'POST without a token');
    r = await post({ ...fields, token: '0'.repeat(tok[1].length) });
    assert.eq(r.status, 403, 'POST with a wrong token');
    r = await post({ ...fields, token: '' });
    assert.eq(r.status, 403, 'POST with an empty token');
    r = await post({ ...fields, token: tok[1] }, { Host: 'evil.example' });
    assert.eq(r.status, 403, 'POST with the token from another Host');
    assert.eq(labelCount(), before, 'labels after the refused POSTs');
    assert.eq(labelCount("annotator = 'ann3'"), 0, "ann3's labels after the refused POSTs");
    // The same POST with the token is stored: the refusals were the token's and the Host's.
    r = await post({ ...fields, token: tok[1] });
    assert.eq(r.status, 303, 'POST with the token');
    assert.eq(labelCount("annotator = 'ann3'"), 1, "ann3's label after the POST with the token");
});

s.test('a request whose Host is not the bound address gets 403', async () => {
    need();
    for (const p of ['/', '/runs/1/label?annotator=ann1', '/runs/1/labels']) {
        const r = await request(view.url(p), { headers: { Host: 'evil.example' } });
        assert.eq(r.status, 403, `GET ${p} with Host: evil.example`);
        assert.ok(!/arbiter-token/.test(r.body), `the 403 page of ${p} carries no token`);
        for (const sys of fx.systems) assert.notIncludes(r.body, sys, `the 403 page of ${p}`);
    }
});

s.test('view --label exits 0 on SIGTERM', async () => {
    need();
    await s.stopServer(view);
    view = null;
});

s.test('--annotator NAME goes straight to the queue', async (t) => {
    assert.ok(fx, 'no fixture');
    const copy = path.join(s.dir, 'annotator.db');
    s.exec(['sqlite3', fx.db, `.backup '${copy}'`]);
    const v = await s.startView({ db: copy, extra: ['--label', '--annotator', 'ann9'], name: 'view-ann9' });
    const page = await t.page();
    await t.goto(page, v.url('/runs/1/label'));
    assert.eq(await t.count(page, 'form#annotator'), 0, 'form#annotator with --annotator');
    assert.eq(await t.count(page, 'form#label-form'), 1, 'form#label-form with --annotator');
    assert.eq(await page.$eval('form#label-form [name="annotator"]', (e) => e.value), 'ann9', 'the annotator field');
    await pick(page, 'form#label-form input[type="radio"][name="choice"][value="tie"]');
    await t.clickNav(page, 'form#label-form button[type="submit"], form#label-form input[type="submit"]');
    await s.stopServer(v);
    assert.eq(Number(s.sql(copy, "SELECT count(*) FROM labels WHERE annotator = 'ann9' AND choice = 'tie'")[0][0]),
        1, "ann9's label");
});

await s.run();
