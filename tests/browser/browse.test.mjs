// Browsing a 10,000-case judged run with `arbiter view` (read-only) in headless chromium: the
// runs list, the run, the case table and its position-inconsistent filter checked against
// the database, a case and the j / k / u keys through the filtered cases, the search form,
// the Host check, a POST refused without --label, and the database file unchanged after it
// all.  usage: node tests/browser/browse.test.mjs path/to/arbiter path/to/judge_sim
import { Suite, assert, request, formBody, sha256File, encodeId, caseIdOf, countOf } from './lib.mjs';
import { bigRun, caseIds, PI_WHERE } from './fixtures.mjs';
import fs from 'node:fs';

const s = new Suite('browse');
let big = null;   // the fixture
let view = null;  // arbiter view over it, read-only
let pi = [];      // its position-inconsistent cases, in reading order (from sqlite3)
let before = {};  // the database files' hashes before the server opened them
let firstPair = []; // [[system, output] of A, of B] of pi[0]
const PER = 50;   // the case table's default page size (view_int.h)
const need = () => assert.ok(view, 'no view server (the fixture test failed)');

function fileState(db) {
    const st = {};
    for (const f of [db, db + '-wal']) st[f] = fs.existsSync(f) ? sha256File(f) : null;
    return st;
}

s.test('fixture: a judged run of 10,000 cases', async () => {
    big = await bigRun(s);
    console.log(`  10,000-case judged run (20,000 judge requests): ${big.seconds.toFixed(1)} s`);
    pi = caseIds(s, big.db, big.run, PI_WHERE);
    const n = Number(s.sql(big.db, 'SELECT count(*) FROM verdicts WHERE run = 1')[0][0]);
    assert.eq(n, 10000, 'verdicts of the run');
    // judge_sim draws each order's winner from three: about 2/3 of the pairs disagree.
    assert.ok(pi.length > 1000 && pi.length < 9000, `position-inconsistent cases: ${pi.length}`);
    // Read now: sqlite3 is not run on the database while the server has it open, since a
    // writer's connection beside the server's read-only one may leave a -wal file behind.
    firstPair = ['system_a', 'system_b'].map((col) => s.sql(big.db,
        `SELECT o.system, o.content FROM verdicts v JOIN outputs o ON o.run = v.run AND ` +
        `o.case_id = v.case_id AND o.system = v.${col} AND o.trial = 0 WHERE v.run = 1 AND ` +
        `v.case_id = '${pi[0]}'`)[0]);
    before = fileState(big.db);
    view = await s.startView({ db: big.db });
    console.log(`  arbiter view listening after ${view.startSeconds.toFixed(1)} s`);
});

s.test('the runs list shows the run and links to it', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/'));
    assert.eq(await t.count(page, 'table#runs tr.run-row'), 1, 'rows of table#runs');
    const row = 'table#runs tr.run-row[data-run="1"]';
    assert.includes(await t.text(page, row), 'browse-10k', 'the run row names the suite');
    assert.eq(await t.count(page, `${row} a.run-link`), 1, 'a.run-link in the row');
    await t.clickNav(page, `${row} a.run-link`);
    assert.eq(new URL(page.url()).pathname, '/runs/1', 'a.run-link leads to');
    for (const id of ['#panel-wins', '#panel-pass', '#panel-judge', 'a#report-link', 'a#cases-link', 'a#label-link'])
        assert.eq(await t.count(page, id), 1, `${id} on /runs/1`);
    const wins = await t.text(page, '#panel-wins');
    for (const sys of big.systems) assert.includes(wins, sys, '#panel-wins names each system');
    const rep = await t.attr(page, 'a#report-link', 'href');
    assert.eq(new URL(rep, page.url()).pathname, '/runs/1/report', 'a#report-link href');
    await t.clickNav(page, 'a#cases-link');
    assert.eq(new URL(page.url()).pathname, '/runs/1/cases', 'a#cases-link leads to');
});

s.test('the case table lists the 10,000 cases in reading order, 50 a page', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/cases'));
    assert.eq(countOf(await t.text(page, 'span#total')), 10000, 'span#total');
    const ids = await page.$$eval('table#cases tr.case-row', (rs) => rs.map((r) => r.dataset.case));
    const want = Array.from({ length: PER }, (_, i) => `c${String(i).padStart(5, '0')}`);
    assert.deepEq(ids, want, 'tr.case-row data-case on page 1');
    assert.eq(await t.count(page, 'table#cases tr.case-row a.case-link'), PER, 'a.case-link per row');
    assert.eq(await t.count(page, 'a#prev-page'), 0, 'a#prev-page on page 1');
    assert.eq(await t.count(page, 'form#filters'), 1, 'form#filters');
    for (const f of ['judged', 'pi', 'jf', 'disagree', 'expfail'])
        assert.eq(await t.count(page, `a.flag-filter[data-flag="${f}"]`), 1, `a.flag-filter[data-flag=${f}]`);
});

s.test('the pi flag filter lists exactly the position-inconsistent cases', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/cases'));
    await t.clickNav(page, 'a.flag-filter[data-flag="pi"]');
    const u = new URL(page.url());
    assert.eq(u.pathname, '/runs/1/cases', 'the filter stays on the case table');
    assert.ok(u.searchParams.getAll('flag').includes('pi'), `flag=pi in ${page.url()}`);
    assert.eq(countOf(await t.text(page, 'span#total')), pi.length,
        'span#total against sqlite3 count of $.judge.position_inconsistent = 1');
    let ids = await page.$$eval('table#cases tr.case-row', (rs) => rs.map((r) => r.dataset.case));
    assert.deepEq(ids, pi.slice(0, PER), 'rows of page 1 (every one position-inconsistent, in reading order)');
    // The next page keeps the filter and goes on where page 1 stopped.
    await t.clickNav(page, 'a#next-page');
    assert.ok(new URL(page.url()).searchParams.getAll('flag').includes('pi'), `a#next-page keeps flag=pi: ${page.url()}`);
    ids = await page.$$eval('table#cases tr.case-row', (rs) => rs.map((r) => r.dataset.case));
    assert.deepEq(ids, pi.slice(PER, 2 * PER), 'rows of page 2');
    assert.eq(await t.count(page, 'a#prev-page'), 1, 'a#prev-page on page 2');
});

s.test('a case opened from the filtered table: j, k and u walk the filtered cases', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/cases?flag=pi'));
    const rows = await page.$$eval('table#cases tr.case-row', (rs) => rs.map((r) => r.dataset.case));
    assert.ok(rows.length >= 3, `filtered rows: ${rows.length}`);
    await t.clickNav(page, `table#cases tr.case-row[data-case="${rows[0]}"] a.case-link`);
    assert.eq(caseIdOf(page.url()), rows[0], 'the case a.case-link opened');
    for (const id of ['#task', '#outputs', '#checks', '#judge', '#verdict', 'a#next-case', 'a#back-to-list'])
        assert.eq(await t.count(page, id), 1, `${id} on the case page`);
    assert.eq(await t.count(page, '#outputs .output.output-a'), 1, '#outputs .output.output-a');
    assert.eq(await t.count(page, '#outputs .output.output-b'), 1, '#outputs .output.output-b');
    // Both orders of the judge, one sample each.
    assert.eq(await t.count(page, '#judge .judge-order'), 2, '#judge .judge-order');
    // A is the pair's system_a: its output (from the database) is what .output-a shows.
    assert.eq(rows[0], pi[0], 'the first filtered row');
    const [[sa, oa], [sb, ob]] = firstPair;
    const flat = (x) => x.replace(/\s+/g, ' ').trim();
    assert.includes(flat(await t.text(page, '.output.output-a')), flat(oa), `.output-a shows ${sa}'s output`);
    assert.includes(flat(await t.text(page, '.output.output-b')), flat(ob), `.output-b shows ${sb}'s output`);
    assert.ok(/[?&]flag=pi(&|$)/.test(await t.attr(page, 'a#next-case', 'href')), 'a#next-case keeps flag=pi');
    await t.keyNav(page, 'j');
    assert.eq(caseIdOf(page.url()), rows[1], 'j: the next row of the filtered table');
    await t.keyNav(page, 'j');
    assert.eq(caseIdOf(page.url()), rows[2], 'j again');
    await t.keyNav(page, 'k');
    assert.eq(caseIdOf(page.url()), rows[1], 'k: back one row');
    await t.keyNav(page, 'n');
    assert.eq(caseIdOf(page.url()), rows[2], 'n as j');
    await t.keyNav(page, 'p');
    assert.eq(caseIdOf(page.url()), rows[1], 'p as k');
    await t.keyNav(page, 'u');
    const u = new URL(page.url());
    assert.eq(u.pathname, '/runs/1/cases', 'u: back to the list');
    assert.ok(u.searchParams.getAll('flag').includes('pi'), `u keeps flag=pi: ${page.url()}`);
});

s.test('j from the last row of a page goes to the first of the next page', async (t) => {
    need();
    const page = await t.page();
    const last = pi[PER - 1];
    await t.goto(page, view.url(`/runs/1/cases/${encodeId(last)}?flag=pi`));
    assert.eq(caseIdOf(page.url()), last, 'the case opened');
    await t.keyNav(page, 'j');
    assert.eq(caseIdOf(page.url()), pi[PER], 'j across the page boundary');
});

s.test('the search form filters the table', async (t) => {
    need();
    const page = await t.page();
    await t.goto(page, view.url('/runs/1/cases'));
    await page.type('form#filters [name="q"]', 'c0012');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
    assert.eq(new URL(page.url()).searchParams.get('q'), 'c0012', 'q in the URL');
    assert.eq(countOf(await t.text(page, 'span#total')), 10, 'span#total for q=c0012');
    const ids = await page.$$eval('table#cases tr.case-row', (rs) => rs.map((r) => r.dataset.case));
    assert.deepEq(ids, Array.from({ length: 10 }, (_, i) => `c0012${i}`), 'rows for q=c0012');
});

s.test('the run report is served', async (t) => {
    need();
    const page = await t.page();
    const resp = await t.goto(page, view.url('/runs/1/report'));
    assert.ok(/^text\/html/.test(resp.headers()['content-type'] || ''), 'content type of the report');
    const body = await page.evaluate(() => document.body.textContent);
    for (const sys of big.systems) assert.includes(body, sys, 'the report names each system');
});

s.test('a request whose Host is not the bound address gets 403, without the token', async () => {
    need();
    const ok = await request(view.url('/'));
    assert.eq(ok.status, 200, 'GET / with Host 127.0.0.1:PORT');
    const m = /<meta name="arbiter-token" content="([0-9a-f]+)"/.exec(ok.body);
    assert.ok(m, '<meta name="arbiter-token" content="..."> in the page');
    for (const p of ['/', '/runs/1', '/runs/1/cases?flag=pi', '/assets/view.js']) {
        const r = await request(view.url(p), { headers: { Host: 'evil.example' } });
        assert.eq(r.status, 403, `GET ${p} with Host: evil.example`);
        assert.notIncludes(r.body, m[1], `the 403 page of ${p}`);
    }
    const r = await request(view.url('/'), { headers: { Host: `evil.example:${view.port}` } });
    assert.eq(r.status, 403, 'GET / with Host: evil.example:PORT');
});

s.test('without --label a POST is refused, even with the token', async () => {
    need();
    const page = await request(view.url('/runs/1/label?annotator=ann1'));
    const m = /<meta name="arbiter-token" content="([0-9a-f]+)"/.exec(
        (await request(view.url('/'))).body);
    assert.ok(m, 'the token');
    const r = await request(view.url('/runs/1/label'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: formBody({ token: m[1], case: 'c00000', annotator: 'ann1', choice: 'A', note: 'x' }),
    });
    assert.ok(r.status >= 400 && r.status < 500, `POST /runs/1/label without --label: HTTP ${r.status}`);
    assert.ok(page.status !== 200 || !/id="label-form"/.test(page.body),
        'the labelling form offered without --label');
});

s.test('view exits 0 on SIGTERM and left the database file as it was', async () => {
    need();
    await s.stopServer(view);
    const after = fileState(big.db);
    assert.eq(after[big.db], before[big.db], 'SHA-256 of the database after browsing');
    // A reader of a WAL database may leave an empty -wal (and a -shm index) beside it, as
    // every read-only command does; nothing may be written into it.
    const wal = big.db + '-wal';
    if (after[wal] !== before[wal])
        assert.eq(fs.statSync(wal).size, 0, 'bytes in the -wal file after browsing');
});

await s.run();
