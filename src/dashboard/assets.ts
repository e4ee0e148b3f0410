/**
 * The dashboard's only static files, served from memory: a style sheet, the favicon, and the copy
 * button's script. Pages work without the script (a key, an account id or a snippet is text to select); with
 * it, a button copies it and says so in a live region, and Try it previews the chosen image. No inline style or script anywhere, so the
 * Content-Security-Policy can forbid both.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"

/** A file served from memory, cached by browsers for an hour. */
export const asset = (body: string, contentType: string) =>
  Effect.succeed(HttpServerResponse.text(body, { contentType, headers: { "cache-control": "public, max-age=3600" } }))

export const styleSheet = `
:root { color-scheme: light; --text: #1b1b1f; --muted: #4a4f57; --accent: #1d4ed8; --accent-dark: #1e3a8a;
  --danger: #b42318; --ok: #126b3a; --border: #c4c8cf; --surface: #f4f5f7;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; }
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; color: var(--text); background: #fff; font-size: 1.0625rem; }
a { color: var(--accent); text-underline-offset: 0.15em; }
a:hover { color: var(--accent-dark); text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
/* Focus moved there by the page (main, a result's heading), not a control: no ring. */
main:focus, [tabindex="-1"]:focus { outline: none; }
.skip-link { position: absolute; left: 0.5rem; top: -5rem; background: #fff; padding: 0.5rem 1rem; z-index: 1; }
.skip-link:focus { top: 0.5rem; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.site-header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.5rem; padding: 0.5rem 1rem;
  border-bottom: 1px solid var(--border); background: var(--surface); }
.brand { margin: 0; font-weight: 700; }
.brand a { color: var(--text); text-decoration: none; }
.site-header nav ul { display: flex; flex-wrap: wrap; gap: 0 1rem; list-style: none; margin: 0; padding: 0; }
.site-header nav a { display: inline-block; padding: 0.5rem 0.125rem; }
.site-header nav a[aria-current="page"] { color: var(--text); font-weight: 700; text-decoration-thickness: 3px; }
.account { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; margin-left: auto; }
.account p, .account form { margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 0.5rem 1rem 3rem; }
h1 { font-size: 2rem; line-height: 1.2; margin: 1rem 0; }
h2 { font-size: 1.375rem; line-height: 1.3; margin: 2rem 0 0.75rem; }
.field { margin: 0 0 1.25rem; }
label, legend { display: block; font-weight: 600; }
.hint { margin: 0.125rem 0 0.25rem; color: var(--muted); }
input[type="text"], input[type="email"], input[type="password"], input[type="date"], textarea {
  font: inherit; width: 100%; max-width: 32rem; padding: 0.5rem; border: 2px solid #5f646c; border-radius: 4px; background: #fff; color: var(--text); }
textarea { max-width: 100%; }
input[type="file"] { font: inherit; max-width: 100%; }
.field-invalid input, .field-invalid textarea { border-color: var(--danger); }
.field-error { color: var(--danger); font-weight: 600; margin: 0.25rem 0; }
button { font: inherit; font-weight: 600; min-height: 2.75rem; padding: 0.5rem 1rem; border-radius: 4px;
  border: 2px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button:hover { background: var(--accent-dark); border-color: var(--accent-dark); }
.button-secondary { background: #fff; color: var(--accent); }
.button-secondary:hover { background: var(--surface); color: var(--accent-dark); }
.button-danger { background: var(--danger); border-color: var(--danger); }
.button-danger:hover { background: #7a1a12; border-color: #7a1a12; }
fieldset { border: 0; padding: 0; margin: 0 0 1.25rem; min-width: 0; }
legend { padding: 0; }
.choice { display: flex; align-items: center; gap: 0.5rem; margin: 0.375rem 0; }
.choice label { font-weight: 400; }
.choice input { width: 1.25rem; height: 1.25rem; margin: 0; }
.conditional { margin: 0.5rem 0 0 1.75rem; }
.error-summary { border: 3px solid var(--danger); padding: 0.5rem 1rem; margin: 1rem 0; }
.error-summary h2 { margin-top: 0.25rem; font-size: 1.25rem; }
.notice { border-left: 6px solid var(--ok); background: #eef7f1; padding: 0.75rem 1rem; }
.new-key, .result { border: 3px solid var(--ok); padding: 0.5rem 1rem 1rem; margin: 1rem 0; }
.new-key h2, .result h2 { margin-top: 0.25rem; }
.key-value { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; word-break: break-all; }
.key-id { word-break: break-all; }
.copy { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; }
/* Positioned, so a visually hidden label in a cell stays inside the region instead of widening the page. */
.table-scroll { overflow-x: auto; margin: 0 0 1rem; position: relative; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding: 0.5rem 0; }
th, td { text-align: left; padding: 0.5rem 0.75rem 0.5rem 0; border-bottom: 1px solid var(--border); vertical-align: top; }
thead th { border-bottom: 2px solid var(--text); white-space: nowrap; }
tbody th { font-weight: 400; }
.status-active { color: var(--ok); font-weight: 600; }
.status-expired { color: var(--danger); font-weight: 600; }
.bar-cell { display: flex; align-items: center; gap: 0.5rem; min-width: 12rem; }
.bar-value { min-width: 2.5rem; text-align: right; font-variant-numeric: tabular-nums; }
.bar { flex: 1 1 8rem; height: 0.9rem; }
.bar rect { fill: var(--accent); }
.facts { margin: 0; }
.facts div { display: flex; flex-wrap: wrap; gap: 0 1rem; padding: 0.375rem 0; border-bottom: 1px solid var(--border); }
.facts dt { font-weight: 600; min-width: 10rem; }
.facts dd { margin: 0; }
.balance { font-size: 1.5rem; }
.muted { color: var(--muted); }
.warning { border-left: 6px solid var(--danger); padding: 0.5rem 1rem; }
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; }
.try-facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 1rem 0; }
.try-facts dt { font-weight: 600; }
.try-facts dd { margin: 0; overflow-wrap: anywhere; }
#try-preview { display: block; max-width: 100%; max-height: 16rem; margin: 0 0 1rem; border: 1px solid var(--border); }
#try-preview[hidden] { display: none; }
pre { background: var(--surface); padding: 1rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.95rem; }
.usage-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 0.75rem 2rem; margin: 1rem 0 0.5rem; }
.segmented { display: flex; list-style: none; margin: 0; padding: 0; border: 2px solid var(--accent); border-radius: 6px; overflow: hidden; }
.segmented a { display: block; padding: 0.5rem 0.875rem; text-decoration: none; white-space: nowrap; }
.segmented li + li a { border-left: 2px solid var(--accent); }
.segmented a[aria-current="page"] { background: var(--accent); color: #fff; font-weight: 700; }
.filter { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
.filter label { display: inline; }
select { font: inherit; max-width: 100%; min-height: 2.75rem; padding: 0.375rem 0.5rem; border: 2px solid #5f646c; border-radius: 4px; background: #fff; color: var(--text); }
.export { margin: 0; }
.chart { margin: 0.5rem 0 0; }
.chart svg { display: block; width: 100%; height: 12rem; border-bottom: 2px solid var(--text); }
.ok { fill: var(--accent); background: var(--accent); }
.failed { fill: #c2410c; background: #c2410c; }
.chart-axis { display: flex; justify-content: space-between; gap: 1rem; color: var(--muted); font-size: 0.9rem; }
.legend { display: flex; flex-wrap: wrap; gap: 0.25rem 1.5rem; list-style: none; padding: 0; margin: 0.25rem 0 0.5rem; }
.swatch { display: inline-block; width: 0.9rem; height: 0.9rem; margin-right: 0.4rem; vertical-align: -0.1rem; }
details { margin: 0.5rem 0 1rem; }
summary { cursor: pointer; color: var(--accent); font-weight: 600; padding: 0.5rem 0; }
.request-id { font-size: 0.85rem; word-break: break-all; }
/* Below 600 px a table marked "cards" shows each row as a card, each cell after its column's name. */
@media (max-width: 600px) {
  .cards table, .cards tbody, .cards tr, .cards th, .cards td { display: block; }
  .cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .cards tr { border: 1px solid var(--border); border-radius: 6px; padding: 0.5rem 0.75rem; margin: 0 0 0.75rem; }
  .cards th, .cards td { display: flex; gap: 0.75rem; border: 0; padding: 0.25rem 0; overflow-wrap: anywhere; }
  .cards [data-label]::before { content: attr(data-label); flex: none; min-width: 6.5rem; font-weight: 600; }
}
.site-footer { max-width: 60rem; margin: 0 auto; padding: 1rem; color: var(--muted); border-top: 1px solid var(--border); }
`

/** A picture in a frame, in the accent colour: tells the dashboard's tab apart. */
export const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><circle cx="11" cy="11" r="3.5" fill="#fff"/><path d="M4 26l9-10 5 5 4-4 6 9z" fill="#fff"/></svg>`

export const copyScript = `"use strict";
function selectAll(source) {
  if (typeof source.select === "function") { source.select(); return; }
  var range = document.createRange();
  range.selectNodeContents(source);
  window.getSelection().removeAllRanges();
  window.getSelection().addRange(range);
}
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var source = document.getElementById(button.dataset.copy);
  var status = document.getElementById(button.dataset.status);
  if (!source || !status || !navigator.clipboard) return;
  var what = button.dataset.what || "Key";
  button.hidden = false;
  button.addEventListener("click", function () {
    var text = "value" in source ? source.value : source.textContent;
    navigator.clipboard.writeText(text).then(
      function () { status.textContent = what + " copied to the clipboard."; },
      function () { selectAll(source); status.textContent = "Copying failed: the text is selected, copy it with your keyboard."; }
    );
  });
});
/* Try it: the chosen file, shown before it is sent (a local blob: URL; nothing leaves the browser). */
document.querySelectorAll("input[type=file][data-preview]").forEach(function (input) {
  var preview = document.getElementById(input.dataset.preview);
  if (!preview || !window.URL) return;
  input.addEventListener("change", function () {
    if (preview.src) URL.revokeObjectURL(preview.src);
    var file = input.files && input.files[0];
    preview.hidden = !file;
    if (file) preview.src = URL.createObjectURL(file); else preview.removeAttribute("src");
  });
});
`
