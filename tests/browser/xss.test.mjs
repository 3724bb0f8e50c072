// Outputs, case ids, prompts, the task, suite and system names, annotators' names and notes
// are data: on every page of `arbiter view` they are shown as text and never run.  A run whose
// every string carries a script payload (fixtures.mjs PAYLOADS) is browsed page by page (runs,
// run, cases, each case, search, error pages, report, compare, and with --label the labelling
// page, the reveal page and the labels list): window.__pwned stays undefined, no element
// carries an injected handler or a javascript: link, and the payloads are readable as text.
// usage: node tests/browser/xss.test.mjs path/to/arbiter path/to/judge_sim
import { Suite, assert, encodeId, caseIdOf } from './lib.mjs';
import { payloadRun, PAYLOADS } from './fixtures.mjs';
import fs from 'node:fs';
import path from 'node:path';

const s = new Suite('xss');
let fx = null;
let view = null;
const need = () => assert.ok(view, 'no view server (the fixture test failed)');
const flat = (x) => x.replace(/\s+/g, ' ').trim();

// Nothing ran, nothing was injected, and each of texts reads as text on the page.
async function clean(t, page, texts = []) {
    await t.settle(page, 300);
    const where = page.url();
    const st = await page.evaluate(() => {
        const bad = [];
        for (const el of document.querySelectorAll('*')) {
            for (const a of el.getAttributeNames()) {
                const v = el.getAttribute(a) || '';
                if (/^on/i.test(a) && /__pwned/.test(v)) bad.push(`<${el.localName} ${a}="${v}">`);
                if (/^(href|src|action|formaction|xlink:href)$/i.test(a) &&
                    /^\s*javascript:/i.test(v.replace(/[\u0000-\u001f]/g, '')))
                    bad.push(`<${el.localName} ${a}="${v}">`);
            }
            if (el.localName === 'script' && /__pwned/.test(el.textContent)) bad.push('<script>__pwned');
            if (el.localName === 'iframe' || el.localName === 'object' || el.localName === 'embed')
                bad.push(`<${el.localName}>`);
        }
        return { pwned: typeof window.__pwned, bad, text: document.body ? document.body.textContent : '' };
    });
    assert.eq(st.pwned, 'undefined', `typeof window.__pwned on ${where}`);
    assert.deepEq(st.bad, [], `injected handlers or javascript: links on ${where}`);
    for (const x of texts) assert.includes(flat(st.text), flat(x), `the text of ${where}`);
    return st.text;
}

s.test('fixture: a run whose strings carry script payloads', async () => {
    fx = await payloadRun(s);
    view = await s.startView({ db: fx.db });
});

s.test('runs list: the suite name is text', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/'));
    await clean(t, page, [`payload ${PAYLOADS[0]}`]);
});

s.test('the run: the system names are text', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1'));
    await clean(t, page, fx.systems);
});

s.test('the case table: case ids and winners are text, each link opens its case', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/cases'));
    await clean(t, page, [...fx.ids, fx.systems[0]]);
    const ids = await page.$$eval('table#cases tr.case-row', (rs) => rs.map((r) => r.dataset.case));
    assert.deepEq(ids.slice().sort(), fx.ids.slice().sort(), 'tr.case-row data-case (the ids as stored)');
    for (const id of fx.ids) {
        await t.goto(page, view.url('/runs/1/cases'));
        const rows = await page.$$('table#cases tr.case-row');
        let link = null;
        for (const r of rows) if ((await r.evaluate((e) => e.dataset.case)) === id) link = await r.$('a.case-link');
        assert.ok(link, `a.case-link of ${JSON.stringify(id)}`);
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), link.click()]);
        assert.eq(caseIdOf(page.url()), id, 'the case its link opened');
        await clean(t, page, [id]);
    }
});

s.test('each case page: id, task, prompt and outputs are text', async (t) => {
    need();
    const page = await t.page();
    for (const [i, id] of fx.ids.entries()) {
        await t.goto(page, view.url(`/runs/1/cases/${encodeId(id)}`));
        await clean(t, page, [id, fx.cases[i].prompt, `Task ${PAYLOADS[1]}`,
            fx.outputs[fx.systems[0]][i].output, fx.outputs[fx.systems[1]][i].output]);
        assert.includes(flat(await t.text(page, '#task')), flat(fx.cases[i].prompt), `#task of ${id}`);
        const outs = flat(await t.text(page, '#outputs'));
        for (const sys of fx.systems) assert.includes(outs, flat(fx.outputs[sys][i].output), `#outputs of ${id}`);
    }
});

s.test('a search and bad arguments echo the payload as text', async (t) => {
    need();
    const page = await t.page();
    for (const p of PAYLOADS) {
        await t.goto(page, view.url(`/runs/1/cases?q=${encodeURIComponent(p)}`));
        await clean(t, page);
        const q = await page.$eval('form#filters [name="q"]', (e) => e.value);
        assert.eq(q, p, 'the search box holds the search as typed');
    }
    // An unknown sort or a case the run lacks: an error page that may name the value.
    await t.goto(page, view.url(`/runs/1/cases?sort=${encodeURIComponent(PAYLOADS[3])}`), 400);
    await clean(t, page);
    await t.goto(page, view.url(`/runs/1/cases/${encodeId('nope' + PAYLOADS[1])}`), 404);
    await clean(t, page);
});

s.test('the report and the comparison are inert', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/report'));
    await clean(t, page, fx.systems);
    await t.goto(page, view.url('/compare?a=1&b=1'));
    await clean(t, page);
});

s.test('labelling: the pair, an annotator and a note with payloads are text', async (t) => {
    need();
    await s.stopServer(view);
    view = null;
    const copy = path.join(s.dir, 'payload-label.db');
    s.exec(['sqlite3', fx.db, `.backup '${copy}'`]);
    view = await s.startView({ db: copy, extra: ['--label'], name: 'view-label' });
    const ann = `ann ${PAYLOADS[3]}`;
    const note = `note ${PAYLOADS[1]} ${PAYLOADS[2]}`;
    const page = await t.page();
    await t.goto(page, view.url(`/runs/1/label?annotator=${encodeURIComponent(ann)}`));
    const caseId = await page.$eval('form#label-form [name="case"]', (e) => e.value);
    const i = fx.ids.indexOf(caseId);
    assert.ok(i >= 0, `the pair offered: ${caseId}`);
    await clean(t, page, [fx.outputs[fx.systems[0]][i].output, fx.outputs[fx.systems[1]][i].output]);
    await page.click('form#label-form input[type="radio"][name="choice"][value="B"]');
    await page.type('form#label-form [name="note"]', note);
    await t.clickNav(page, 'form#label-form button[type="submit"], form#label-form input[type="submit"]');
    await clean(t, page, fx.systems);
    await t.goto(page, view.url('/runs/1/labels'));
    await clean(t, page, [ann, note]);
    const row = s.sql(copy, 'SELECT annotator, note FROM labels WHERE run = 1');
    assert.deepEq(row, [[ann, note]], 'the label as stored');
});

// A browser rewrites the line breaks of a form's values (a lone CR or LF becomes CR LF): a
// case id holding one is still labelled as itself, never refused or taken for another case.
s.test('labelling: case ids with line breaks are labelled as they are', async (t) => {
    const dir = path.join(s.dir, 'lines');
    fs.mkdirSync(dir, { recursive: true });
    const ids = ['line\nfeed', 'carriage\rreturn', 'both\r\nbreaks'];
    const rows = (tag) => ids.map((id) => JSON.stringify({ id, output: `${tag} answer` }) + '\n').join('');
    fs.writeFileSync(path.join(dir, 'a.jsonl'), rows('first'));
    fs.writeFileSync(path.join(dir, 'b.jsonl'), rows('second'));
    fs.writeFileSync(path.join(dir, 'suite.json'), JSON.stringify({
        name: 'lines', seed: 2, task: 'Answer.', systems: { one: 'a.jsonl', two: 'b.jsonl' },
        cases: ids.map((id) => ({ id, prompt: 'Say something.' })),
    }));
    const db = path.join(dir, 'lines.db');
    s.exec([s.arb, 'run', path.join(dir, 'suite.json'), '--db', db, '--no-progress']);
    const srv = await s.startView({ db, extra: ['--label', '--annotator', 'ann'], name: 'view-lines' });
    try {
        const page = await t.page();
        for (let i = 0; i < ids.length; i++) {
            await t.goto(page, srv.url('/runs/1/label'));
            await page.click('form#label-form input[type="radio"][name="choice"][value="A"]');
            const resp = await t.clickNav(page, 'form#label-form button[type="submit"]');
            assert.eq(resp.status(), 200, `saving the label of pair ${i + 1} (${page.url()})`);
            assert.ok(await page.$('#revealed'), `the reveal page after pair ${i + 1}`);
        }
        await t.goto(page, srv.url('/runs/1/label'));
        assert.ok(await page.$('#queue-done'), 'the queue is done after three labels');
        const got = s.sql(db, 'SELECT case_id FROM labels ORDER BY case_id').map((r) => r[0]);
        assert.deepEq(got, ids.slice().sort(), 'the case ids labelled, as stored');
    } finally {
        await s.stopServer(srv);
    }
});

s.test('view exits 0 on SIGTERM', async () => {
    need();
    await s.stopServer(view);
    view = null;
});

await s.run();
