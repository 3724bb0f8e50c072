/*
 * assets.c - the stylesheet and script of `arbiter view`, embedded: the pages work offline
 * and load nothing from elsewhere (the Content-Security-Policy of server.c forbids it).
 *
 * The stylesheet is the static report's (html_style_lines) plus the view's own rules.  The
 * script only adds keyboard navigation and conveniences; every page works without it (links
 * and forms do the work), and it never puts page text into markup: it reads hrefs and
 * follows them.
 */
#include <string.h>

#include "../report/html_int.h"
#include "view_int.h"

static const char *const view_css[] = {
    "nav.top{display:flex;gap:4px;align-items:center;flex-wrap:wrap;padding:8px 20px;"
    "background:#1f2933;color:#e4e7eb;font-size:.9rem}",
    "nav.top a{color:#e4e7eb;text-decoration:none;padding:4px 10px;border-radius:6px}",
    "nav.top a:hover{background:#323f4b}",
    "nav.top a.brand{font-weight:700;margin-right:10px}",
    "nav.top .db{margin-left:auto;color:#9aa5b1;font-size:.8rem;overflow:hidden;"
    "text-overflow:ellipsis;white-space:nowrap;max-width:40%}",
    "main{max-width:1400px}",
    "a.tile{text-decoration:none;color:inherit}",
    ".outputs{margin-top:14px}",
    "a.tile:hover{border-color:var(--accent)}",
    "form.filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;margin:8px 0 12px}",
    "form.filters label{display:flex;flex-direction:column;font-size:.78rem;color:var(--muted)}",
    "form.filters input[type=search]{min-width:240px}",
    "input,select,textarea,button{font:inherit;font-size:.9rem;padding:4px 8px;"
    "border:1px solid #cbd2d9;border-radius:6px;background:#fff}",
    "button,.button{cursor:pointer;background:var(--accent);color:#fff;border-color:var(--accent);"
    "padding:5px 14px;border-radius:6px;text-decoration:none;display:inline-block}",
    ".flags{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0 10px}",
    "a.flag-filter{font-size:.82rem;padding:3px 10px;border-radius:999px;background:#e8eef7;"
    "color:var(--accent);text-decoration:none}",
    "a.flag-filter.on{background:var(--accent);color:#fff}",
    "a.flag-filter .c{opacity:.75;margin-left:4px}",
    "table#cases td.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "font-size:.85rem;word-break:break-all}",
    ".pager{display:flex;gap:12px;align-items:center;margin:10px 0}",
    ".pager .disabled{color:#9aa5b1}",
    ".casenav{display:flex;gap:12px;align-items:center;margin:0 0 10px;font-size:.9rem}",
    ".casenav .keys{color:var(--muted);font-size:.8rem;margin-left:auto}",
    "kbd{font:11px ui-monospace,monospace;border:1px solid #cbd2d9;border-bottom-width:2px;"
    "border-radius:4px;padding:0 4px;background:#fff}",
    "ins{background:#d7f5dd;text-decoration:none}",
    "del{background:#fde2e1;text-decoration:none}",
    ".output h4{margin:0 0 6px;font-size:.9rem}",
    ".output .file{font-weight:600;color:var(--muted)}",
    ".choices{display:flex;gap:14px;flex-wrap:wrap;margin:8px 0}",
    ".choices label{border:1px solid var(--line);border-radius:8px;padding:6px 14px;"
    "background:#fff;cursor:pointer}",
    ".crit{display:grid;grid-template-columns:minmax(140px,auto) 1fr;gap:4px 14px;"
    "align-items:center;margin:8px 0}",
    "textarea{width:100%;min-height:70px}",
    ".error{color:var(--fail)}",
    ".ok{color:var(--pass)}",
    "ul.plain{list-style:none;padding:0;margin:0}",
    NULL,
};

/*
 * Keyboard: on a case page j/n and k/p follow a#next-case and a#prev-case, u a#back-to-list;
 * on the case table j/k move a highlight over the rows and Enter opens the row's case.  Keys
 * typed into a field are left alone.  Nothing here writes markup.
 */
static const char view_js[] =
    "(function(){\n"
    "'use strict';\n"
    "function go(id){var a=document.getElementById(id);if(a&&a.href){location.href=a.href;"
    "return true;}return false;}\n"
    "var rows=[],cur=-1;\n"
    "function mark(i){if(!rows.length)return;if(cur>=0)rows[cur].classList.remove('cur');\n"
    "cur=Math.max(0,Math.min(rows.length-1,i));rows[cur].classList.add('cur');\n"
    "rows[cur].scrollIntoView({block:'nearest'});}\n"
    "document.addEventListener('DOMContentLoaded',function(){\n"
    "rows=Array.prototype.slice.call(document.querySelectorAll('tr.case-row'));});\n"
    "document.addEventListener('keydown',function(e){\n"
    "var t=e.target&&e.target.tagName;\n"
    "if(e.altKey||e.ctrlKey||e.metaKey||t==='INPUT'||t==='TEXTAREA'||t==='SELECT')return;\n"
    "var k=e.key;\n"
    "if(document.getElementById('next-case')||document.getElementById('prev-case')){\n"
    "if((k==='j'||k==='n')&&go('next-case'))e.preventDefault();\n"
    "else if((k==='k'||k==='p')&&go('prev-case'))e.preventDefault();\n"
    "else if(k==='u'&&go('back-to-list'))e.preventDefault();\n"
    "return;}\n"
    "if(rows.length){\n"
    "if(k==='j'){mark(cur+1);e.preventDefault();}\n"
    "else if(k==='k'){mark(cur-1);e.preventDefault();}\n"
    "else if(k==='Enter'&&cur>=0){var a=rows[cur].querySelector('a.case-link');"
    "if(a){location.href=a.href;e.preventDefault();}}\n"
    "else if(k==='n'&&go('next-page'))e.preventDefault();\n"
    "else if(k==='p'&&go('prev-page'))e.preventDefault();}\n"
    "});\n"
    "})();\n";

static enum arb_status css(struct view_resp *out)
{
    struct html h = {&out->body, ARB_OK};

    for (size_t i = 0; html_style_lines[i]; i++) {
        html_raw(&h, html_style_lines[i]);
        html_raw(&h, "\n");
    }
    for (size_t i = 0; view_css[i]; i++) {
        html_raw(&h, view_css[i]);
        html_raw(&h, "\n");
    }
    html_raw(&h, "tr.case-row.cur{background:#fffbea;outline:2px solid #d9a400}\n");
    return h.st;
}

enum arb_status view_asset(struct view_ctx *v, const char *name, struct view_resp *out)
{
    out->cacheable = 1;
    if (strcmp(name, "view.css") == 0) {
        out->content_type = "text/css; charset=utf-8";
        return css(out);
    }
    if (strcmp(name, "view.js") == 0) {
        out->content_type = "text/javascript; charset=utf-8";
        return arb_buf_add(&out->body, view_js, sizeof(view_js) - 1);
    }
    out->cacheable = 0;
    return view_error_page(v, out, 404, "no such asset");
}
