// tests/browser/lib.mjs: what the browser tests of `arbiter view` share, after tests/cli/lib.sh:
// a temporary directory removed at exit, the servers they start (arbiter view, the test judge)
// on loopback ports read from a port file, headless Debian chromium driven over the DevTools
// protocol by puppeteer-core, assertions, and the closing line "NAME: N passed, M failed".
//
//     import { Suite, assert } from './lib.mjs';
//     const s = new Suite('browse');              // reads argv: ARBITER [JUDGE_SIM]
//     s.test('runs list shows the run', async (t) => {
//         const view = await s.startView({ db });  // stopped at the end of the script
//         const page = await t.page();             // console errors fail the test
//         await t.goto(page, view.url('/'));
//         assert.eq(await t.count(page, 'tr.run-row'), 1, 'run rows');
//     });
//     await s.run();                               // prints the summary, exits 0 or 1
//
// A test fails on its first failed assertion or thrown error, and also when any page it
// opened logged a console error, threw an uncaught exception, or had a request fail (an
// HTTP status of 400 or more for a page or sub-resource, or a network failure), unless the
// test said that status was expected (t.expectStatus).  Every failure prints "FAIL: test:
// why" on stdout.  Whatever happens (a failed test, an uncaught error, SIGINT, SIGTERM), the
// servers get SIGTERM and are waited for, the browser is closed and the temporary directory
// removed (KEEP=1 in the environment keeps it and prints its path).
//
// Environment: CHROMIUM (default /usr/bin/chromium), KEEP, BROWSER_DEBUG=1 (print every
// console line of the pages), VIEW_TIMEOUT (seconds to wait for a port file, default 60: the server may prepare
// the latest run before it listens).

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// The flags that keep chromium off the network and out of the user's profile: it runs as
// root here (no sandbox), with a fresh profile per script, and never calls home.
const CHROMIUM_ARGS = [
    '--no-sandbox', '--headless=new', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--no-default-browser-check', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-domain-reliability',
    '--disable-breakpad', '--metrics-recording-only', '--disable-extensions',
    '--disable-dev-shm-usage', '--password-store=basic', '--use-mock-keychain',
];

export class AssertionError extends Error {}

function show(v) {
    const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
    return s.length > 300 ? s.slice(0, 300) + '...' : s;
}

export const assert = {
    ok(cond, msg) {
        if (!cond) throw new AssertionError(msg);
    },
    eq(got, want, msg) {
        if (got !== want) throw new AssertionError(`${msg}: got ${show(got)}, want ${show(want)}`);
    },
    near(got, want, tol, msg) {
        if (!(typeof got === 'number' && Math.abs(got - want) <= tol))
            throw new AssertionError(`${msg}: got ${show(got)}, want ${want} (within ${tol})`);
    },
    includes(hay, needle, msg) {
        if (typeof hay !== 'string' || !hay.includes(needle))
            throw new AssertionError(`${msg}: ${show(needle)} not in ${show(hay)}`);
    },
    notIncludes(hay, needle, msg) {
        if (typeof hay !== 'string' || hay.includes(needle)) {
            const at = typeof hay === 'string' ? hay.indexOf(needle) : -1;
            const ctx = at >= 0 ? hay.slice(Math.max(0, at - 120), at + needle.length + 120) : hay;
            throw new AssertionError(`${msg}: ${show(needle)} found in ...${show(ctx)}...`);
        }
    },
    deepEq(got, want, msg) {
        const g = JSON.stringify(got), w = JSON.stringify(want);
        if (g !== w) throw new AssertionError(`${msg}: got ${show(g)}, want ${show(w)}`);
    },
    fail(msg) {
        throw new AssertionError(msg);
    },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Wait until file holds a whole number (the port file is written atomically once the server
// listens), or the process exits, or the time is up.
async function waitPortFile(file, proc, what, errFile) {
    const limit = Date.now() + Number(process.env.VIEW_TIMEOUT || 60) * 1000;
    for (;;) {
        let s = '';
        try { s = fs.readFileSync(file, 'utf8').trim(); } catch { /* not yet */ }
        if (/^[0-9]+$/.test(s)) return Number(s);
        if (proc.exitCode !== null || proc.signalCode !== null) {
            throw new Error(`${what} exited (${proc.exitCode ?? proc.signalCode}) before ` +
                `writing its port file: ${readHead(errFile)}`);
        }
        if (Date.now() > limit) throw new Error(`${what} wrote no port file in time: ${readHead(errFile)}`);
        await sleep(25);
    }
}

function readHead(file, n = 600) {
    try { return fs.readFileSync(file, 'utf8').slice(0, n); } catch { return ''; }
}

// A server process started by a test: stop() sends SIGTERM and waits; the exit must be 0.
class Server {
    constructor(name, proc, port, errFile) {
        this.name = name;
        this.proc = proc;
        this.port = port;
        this.errFile = errFile;
        this.exited = new Promise((r) => proc.once('exit', (code, sig) => r({ code, sig })));
    }

    url(p = '/') {
        return `http://127.0.0.1:${this.port}${p}`;
    }

    stderr() {
        return readHead(this.errFile, 4000);
    }

    // SIGTERM, then up to timeoutMs for the exit; returns {code, sig}, SIGKILL after that.
    async stop(timeoutMs = 5000) {
        if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
        const r = await Promise.race([this.exited, sleep(timeoutMs).then(() => null)]);
        if (r) return r;
        this.proc.kill('SIGKILL');
        await this.exited;
        return { code: null, sig: 'SIGKILL', timedOut: true };
    }
}

// A URL as a key that the browser's own spelling of it matches: the path and query decoded.
function pathKey(url) {
    try {
        const u = new URL(url);
        const dec = (x) => { try { return decodeURIComponent(x.replace(/\+/g, ' ')); } catch { return x; } };
        return dec(u.pathname) + '?' + dec(u.search.slice(1));
    } catch {
        return url;
    }
}

// One test's handle: its pages, and what they reported.
class TestCtx {
    constructor(suite, name) {
        this.suite = suite;
        this.name = name;
        this.problems = [];       // console errors, page errors, failed requests
        this.expected = new Set(); // "STATUS URL-prefix" a test said it expects
        this.pages = [];
        this.contexts = [];
    }

    // A new page in a fresh browser context (no cookies or storage from other tests), with
    // its console, errors and requests watched.  width x height viewport.
    async page({ width = 1280, height = 800 } = {}) {
        const browser = await this.suite.browser();
        const ctx = await browser.createBrowserContext();
        this.contexts.push(ctx);
        const page = await ctx.newPage();
        await page.setViewport({ width, height });
        page.setDefaultTimeout(15000);
        page.setDefaultNavigationTimeout(30000);
        this.watch(page);
        this.pages.push(page);
        return page;
    }

    watch(page) {
        const where = () => { try { return page.url(); } catch { return '?'; } };
        page.on('console', (m) => {
            if (process.env.BROWSER_DEBUG) console.log(`  console.${m.type()}: ${m.text()} (${where()})`);
            if (m.type() === 'error' || m.type() === 'assert') {
                const loc = m.location();
                const url = loc && loc.url ? loc.url : where();
                if (this.isExpected(m.text(), url)) return;
                this.problems.push(`console ${m.type()} on ${where()}: ${m.text()}` +
                    (loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''));
            }
        });
        page.on('pageerror', (e) => this.problems.push(`uncaught exception on ${where()}: ${e.message || e}`));
        page.on('requestfailed', (r) => {
            const f = r.failure();
            this.problems.push(`request failed: ${r.method()} ${r.url()}: ${f ? f.errorText : '?'}`);
        });
        page.on('response', (r) => {
            const st = r.status();
            if (st >= 400 && !this.expected.has(`${st} ${pathKey(r.url())}`))
                this.problems.push(`HTTP ${st} for ${r.request().method()} ${r.url()}`);
        });
    }

    // The browser logs "Failed to load resource: ... status of 403" for a status the test
    // asked for on purpose; expectStatus(403, url) keeps that (and the response) quiet.
    expectStatus(status, url) {
        this.expected.add(`${status} ${pathKey(url)}`);
    }

    isExpected(text, url) {
        const m = /status of (\d{3})/.exec(text);
        return m !== null && this.expected.has(`${m[1]} ${pathKey(url)}`);
    }

    // Navigate and wait for the load event; the status must be want (200 by default).
    async goto(page, url, want = 200) {
        if (want >= 400) this.expectStatus(want, url);
        const resp = await page.goto(url, { waitUntil: 'load' });
        assert.ok(resp, `no response for ${url}`);
        assert.eq(resp.status(), want, `HTTP status of GET ${url}`);
        return resp;
    }

    // Click selector (a link or a submit button) and wait for the page it leads to.
    async clickNav(page, selector) {
        const el = await page.$(selector);
        assert.ok(el, `no ${selector} on ${page.url()}`);
        const [resp] = await Promise.all([
            page.waitForNavigation({ waitUntil: 'load', timeout: 10000 }).catch((e) => {
                if (e && e.name === 'TimeoutError')
                    throw new AssertionError(`clicking ${selector} on ${page.url()} led nowhere within 10 s`);
                throw e;
            }),
            el.click(),
        ]);
        return resp;
    }

    // Press key (as a person would, on the page body) and wait for the page it leads to.
    async keyNav(page, key) {
        const from = page.url();
        const [resp] = await Promise.all([
            page.waitForNavigation({ waitUntil: 'load', timeout: 5000 }).catch((e) => {
                if (e && e.name === 'TimeoutError')
                    throw new AssertionError(`pressing ${key} on ${from} led nowhere within 5 s`);
                throw e;
            }),
            page.keyboard.press(key),
        ]);
        return resp;
    }

    async text(page, selector) {
        const el = await page.$(selector);
        assert.ok(el, `no ${selector} on ${page.url()}`);
        return page.evaluate((e) => e.textContent, el);
    }

    async count(page, selector) {
        return page.$$eval(selector, (els) => els.length);
    }

    async attr(page, selector, name) {
        const el = await page.$(selector);
        assert.ok(el, `no ${selector} on ${page.url()}`);
        return page.evaluate((e, n) => e.getAttribute(n), el, name);
    }

    // Let pending timers, image errors and the like run before looking at the page's state.
    async settle(page, ms = 150) {
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
        await sleep(ms);
    }

    async close() {
        for (const c of this.contexts) await c.close().catch(() => {});
        this.contexts = [];
        this.pages = [];
    }
}

// An unexpected error: its message and where it was thrown (the first frames of its stack).
function brief(e) {
    if (!(e && e.stack)) return String(e);
    const lines = e.stack.split('\n');
    return [lines[0], ...lines.slice(1).filter((l) => !l.includes('node_modules')).slice(0, 2)].join('\n');
}

export class Suite {
    // name: the summary's first word.  Reads ARBITER and JUDGE_SIM from argv[2] and argv[3].
    constructor(name) {
        this.name = name;
        this.tests = [];
        this.passed = 0;
        this.failed = 0;
        this.servers = [];
        this._browser = null;
        this.arb = path.resolve(process.argv[2] || 'build/arbiter');
        this.sim = path.resolve(process.argv[3] || 'build/judge_sim');
        this.dir = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), `arbiter-browser-${name}.`));
        this.cleaning = null;
        const onSignal = (sig, code) => process.once(sig, () => {
            console.log(`${this.name}: ${sig}, cleaning up`);
            this.cleanup().finally(() => process.exit(code));
        });
        onSignal('SIGINT', 130);
        onSignal('SIGTERM', 143);
        onSignal('SIGHUP', 129);
    }

    test(name, fn) {
        this.tests.push({ name, fn });
    }

    // The shared browser, launched on first use.
    async browser() {
        if (!this._browser) {
            this._browser = await puppeteer.launch({
                executablePath: CHROMIUM,
                headless: true,
                userDataDir: fs.mkdtempSync(path.join(this.dir, 'chromium-')),
                args: CHROMIUM_ARGS,
                protocolTimeout: 60000,
            });
        }
        return this._browser;
    }

    // Start a server that writes its port to portFile once it listens.  argv: full command.
    async startServer(name, argv, portFile, env, cwd) {
        const errFile = path.join(this.dir, `${name}.err`);
        try { fs.unlinkSync(portFile); } catch { /* none */ }
        const err = fs.openSync(errFile, 'w');
        const proc = spawn(argv[0], argv.slice(1), {
            stdio: ['ignore', 'ignore', err],
            env: { ...process.env, ...(env || {}) },
            cwd,
        });
        fs.closeSync(err);
        const srv = new Server(name, proc, 0, errFile);
        this.servers.push(srv);
        const t0 = Date.now();
        try {
            srv.port = await waitPortFile(portFile, proc, `${name} (${argv.join(' ')})`, errFile);
        } catch (e) {
            // Reported here, once: not again as a failed stop at the end.
            this.servers.splice(this.servers.indexOf(srv), 1);
            await srv.stop();
            throw e;
        }
        srv.startSeconds = (Date.now() - t0) / 1000;
        return srv;
    }

    // arbiter view on 127.0.0.1, port 0 (a free one, from --port-file).  extra: more flags;
    // cwd: its working directory (db may then be relative to it).
    async startView({ db, extra = [], name = 'view', cwd }) {
        const pf = path.join(this.dir, `${name}.port`);
        return this.startServer(name, [this.arb, 'view', '--db', db, '--port', '0', '--port-file', pf,
            ...extra], pf, undefined, cwd);
    }

    // The test judge (tests/judge_sim) on 127.0.0.1, with its flags.
    async startSim(flags = [], name = 'sim') {
        const pf = path.join(this.dir, `${name}.port`);
        return this.startServer(name, [this.sim, '--port', '0', '--port-file', pf, ...flags], pf);
    }

    // Stop srv (SIGTERM and wait); throws unless it exited 0 within the time.
    async stopServer(srv) {
        const i = this.servers.indexOf(srv);
        if (i >= 0) this.servers.splice(i, 1);
        const r = await srv.stop();
        if (r.timedOut) assert.fail(`${srv.name} did not exit within 5 s of SIGTERM (killed)`);
        assert.ok(r.code === 0, `${srv.name} exited ${r.code ?? r.sig} on SIGTERM, want 0: ${srv.stderr()}`);
    }

    // Run a command to completion; throws with its output unless it exits wantCode.
    exec(argv, { wantCode = 0, input, env, cwd } = {}) {
        const r = spawnSync(argv[0], argv.slice(1), {
            input, cwd, encoding: 'utf8', maxBuffer: 256 << 20,
            env: { ...process.env, ...(env || {}) },
        });
        if (r.error) throw r.error;
        if (wantCode !== null && r.status !== wantCode) {
            throw new Error(`${argv.join(' ')} exited ${r.status ?? r.signal}, want ${wantCode}:\n` +
                `${(r.stdout || '').slice(0, 800)}\n${(r.stderr || '').slice(0, 800)}`);
        }
        return r;
    }

    // sqlite3 DB SQL: the rows, one array of columns each (columns split on \x1f).
    sql(db, query) {
        const r = this.exec(['sqlite3', '-bail', '-separator', '\x1f', '-newline', '\x1e', db, query]);
        return r.stdout.split('\x1e').filter((l) => l !== '').map((l) => l.split('\x1f'));
    }

    async runTests() {
        for (const { name, fn } of this.tests) {
            const t = new TestCtx(this, name);
            const t0 = Date.now();
            let why = null;
            try {
                await fn(t);
            } catch (e) {
                why = e instanceof AssertionError ? e.message : brief(e);
            }
            // Late console errors (an image that failed after the assertions) still count.
            if (t.pages.length) await sleep(50);
            await t.close();
            if (t.problems.length) {
                // One line each, long messages (CSP reports) cut; repeats counted once.
                const p = [...new Set(t.problems.map((x) => (x.length > 300 ? x.slice(0, 300) + '...' : x)))];
                why = (why ? why + '\n  also: ' : '') + p.slice(0, 6).join('\n  ') +
                    (p.length > 6 ? `\n  ... ${p.length - 6} more` : '');
            }
            const secs = ((Date.now() - t0) / 1000).toFixed(1);
            if (why === null) {
                this.passed++;
                console.log(`ok: ${name} (${secs} s)`);
            } else {
                this.failed++;
                console.log(`FAIL: ${name} (${secs} s): ${why}`);
            }
        }
    }

    // Run every test in order, clean up, print the summary and exit.
    async run() {
        const t0 = Date.now();
        try {
            await this.runTests();
        } catch (e) {
            this.failed++;
            console.log(`FAIL: ${this.name}: ${brief(e)}`);
        }
        await this.cleanup();
        console.log(`${this.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        console.log(`${this.name}: ${this.passed} passed, ${this.failed} failed`);
        process.exit(this.failed === 0 ? 0 : 1);
    }

    // Stop every server still running (a stop that is not clean fails the script), close
    // the browser, remove the temporary directory.  Safe to call twice.
    cleanup() {
        if (!this.cleaning) this.cleaning = this.cleanup_();
        return this.cleaning;
    }

    async cleanup_() {
        for (const srv of this.servers.splice(0).reverse()) {
            const r = await srv.stop();
            if (r.timedOut || r.code !== 0) {
                this.failed++;
                console.log(`FAIL: ${srv.name} exited ${r.code ?? r.sig} on SIGTERM, want 0` +
                    (r.timedOut ? ' (killed after 5 s)' : '') + `: ${srv.stderr()}`);
            }
        }
        if (this._browser) {
            await this._browser.close().catch(() => {});
            this._browser = null;
        }
        if (process.env.KEEP && process.env.KEEP !== '0') {
            console.error(`kept ${this.dir}`);
        } else {
            fs.rmSync(this.dir, { recursive: true, force: true });
        }
    }
}

// A raw HTTP request to a loopback server, with the headers exactly as given (Host too).
// Returns {status, headers, body}.
export function request(url, { method = 'GET', headers = {}, body } = {}) {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
        const req = http.request({
            host: u.hostname, port: u.port, path: u.pathname + u.search, method,
            headers: { ...(body !== undefined ? { 'Content-Length': Buffer.byteLength(body) } : {}), ...headers },
            setHost: !Object.keys(headers).some((h) => h.toLowerCase() === 'host'),
        }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({
                status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'),
            }));
        });
        req.setTimeout(10000, () => req.destroy(new Error(`${method} ${url}: no reply in 10 s`)));
        req.on('error', reject);
        if (body !== undefined) req.write(body);
        req.end();
    });
}

// application/x-www-form-urlencoded, as a browser sends a form.
export function formBody(fields) {
    return new URLSearchParams(fields).toString();
}

export function sha256File(file) {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

// A case id in a path: every byte outside [A-Za-z0-9-._~] percent-encoded (view_int.h).
export function encodeId(id) {
    return Array.from(Buffer.from(id, 'utf8')).map((b) => {
        const c = String.fromCharCode(b);
        return /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
    }).join('');
}

// The case id a case page's URL names (/runs/ID/cases/CASE?...).
export function caseIdOf(url) {
    const m = /\/runs\/\d+\/cases\/([^?#]*)/.exec(new URL(url).pathname);
    return m ? decodeURIComponent(m[1]) : null;
}

// A count as a page shows it ("6,644", "6 644" or "6644"): its digits as a number.
export function countOf(s) {
    const d = String(s).replace(/[\s,.\u00a0\u202f']/g, '');
    return /^[0-9]+$/.test(d) ? Number(d) : NaN;
}
