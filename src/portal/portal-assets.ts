import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createHash } from 'node:crypto';

/**
 * The portal's static files: its style sheet, its one script (draws the charts) and Chart.js. Served from the
 * portal itself under content-hashed names, so pages may cache them for good and the CSP allows 'self' only.
 */
const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f3f5f7}
a{color:#0550ae}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:2}
.skip:focus{left:1rem}
header.top{background:#1b1f24;color:#fff}
header.top .bar{max-width:72rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:1rem}
header.top .name{font-weight:700;margin-right:auto}
header.top nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0}
header.top nav a{color:#fff;display:inline-block;padding:.5rem .75rem;border-radius:6px;text-decoration:none}
header.top nav a[aria-current=page]{background:#3d444d}
header.top nav a:hover{background:#3d444d}
header.top form{margin:0}
header.top button{background:transparent;color:#fff;border:1px solid #8c959f}
main{max-width:72rem;margin:1rem auto;padding:0 1rem}
.card{background:#fff;border-radius:10px;padding:1rem 1.25rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(27,31,36,.15)}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.125rem;margin:0 0 .75rem}
p{margin:.5rem 0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.9375rem}
th,td{text-align:left;padding:.375rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top;overflow-wrap:break-word}
th{background:#f6f8fa;font-weight:600}
.scroll{overflow-x:auto}
.field{display:flex;flex-direction:column;gap:.25rem;margin:.5rem 0}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.row .field{flex:1 1 14rem}
input,select,textarea{font:inherit;padding:.375rem .5rem;border:1px solid #6e7781;border-radius:6px;min-height:2.5rem;background:#fff;color:inherit}
textarea{min-height:6rem}
button,.button{display:inline-block;white-space:nowrap;font:inherit;font-weight:600;padding:.4375rem .875rem;min-height:2.5rem;border-radius:6px;border:2px solid #0550ae;background:#0550ae;color:#fff;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:#0550ae}
button.danger{background:#a40e26;border-color:#a40e26}
button:hover{filter:brightness(.92)}
form.inline{display:inline}
:focus-visible{outline:3px solid #0550ae;outline-offset:2px}
header.top :focus-visible{outline-color:#fff}
.notice{border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem;border:1px solid #8c959f;background:#f6f8fa}
.notice.error{border-color:#cf222e;background:#ffebe9;color:#82071e}
.notice.success{border-color:#1a7f37;background:#dafbe1;color:#0f5323}
.status{display:inline-block;font-size:.8125rem;padding:.125rem .5rem;border-radius:999px;background:#eaeef2;color:#32383f;white-space:nowrap}
.status.good{background:#dafbe1;color:#0f5323}
.status.bad{background:#ffebe9;color:#82071e}
.hint{color:#57606a;font-size:.875rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.875rem}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem;overflow:auto;max-height:40rem}
.secret{font-size:1rem;padding:.5rem;background:#fff8c5;border:1px solid #bf8700;border-radius:6px;word-break:break-all}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(20rem,100%),1fr));gap:1rem;align-items:start}
.charts .card{min-width:0}
.chart{position:relative;height:18rem}
.pager{display:flex;gap:.75rem;align-items:center;margin-top:.75rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.sign-in{max-width:28rem;margin:3rem auto}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
time,.date,td.key{white-space:nowrap}
td button,td .button{min-height:2rem;padding:.1875rem .625rem;font-size:.875rem}
input[type=checkbox]{min-height:0;width:1.25rem;height:1.25rem;margin:0;padding:0;flex:none;accent-color:#0550ae}
fieldset{border:1px solid #d0d7de;border-radius:8px;margin:.75rem 0;padding:.25rem 1rem .75rem;min-width:0}
legend{font-weight:600;padding:0 .25rem}
.event-groups{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(20rem,100%),1fr));gap:0 1rem;align-items:start}
.event-group{margin:.5rem 0}
.check{display:flex;align-items:center;gap:.5rem;min-height:2.25rem;overflow-wrap:anywhere}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(13rem,100%),1fr));gap:0 1rem}
details summary{cursor:pointer;padding:.375rem 0}
ul.links{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;margin:.5rem 0 0;padding:0}
ul.links a{display:inline-block;padding:.25rem 0}
.tabs ul{list-style:none;display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 1rem;padding:0}
.tabs a{display:inline-block;padding:.4375rem .875rem;border-radius:6px;border:1px solid #8c959f;background:#fff;text-decoration:none}
.tabs a[aria-current=page]{background:#0550ae;border-color:#0550ae;color:#fff}
table.statement th[scope=row]{font-weight:400;background:#fff;white-space:nowrap;box-shadow:1px 0 0 #d0d7de}
table.statement thead th:first-child,table.statement th[scope=row]{position:sticky;left:0;z-index:1}
table.statement thead th:first-child{background:#f6f8fa}
table.statement tr.section th,table.statement tr.section td{font-weight:600;background:#f6f8fa}
table.statement tr.total th,table.statement tr.total td{font-weight:700;border-top:2px solid #57606a}
table.statement tr.depth-1 th{padding-left:1.5rem}
table.statement tr.depth-2 th{padding-left:2.5rem}
table.statement tr.depth-3 th{padding-left:3.5rem}
@media (max-width:40rem){table.statement th[scope=row]{white-space:normal;min-width:8.5rem;max-width:10rem}table.statement tr.depth-1 th{padding-left:1rem}table.statement tr.depth-2 th,table.statement tr.depth-3 th{padding-left:1.5rem}}
@media (forced-colors:active){.status{border:1px solid}}
`;

/**
 * Draws every `<canvas data-chart-src>` with Chart.js from the JSON the portal serves at that address:
 * `{type, indexAxis?, valueTitle?, labels, tickLabels?, datasets: [{label, data}]}`. The same numbers are in a table next to each
 * chart, so the chart is an addition for those who would rather look than read, and the page works without this
 * script.
 *
 * Readable at any width: a chart with bars laid out horizontally (`indexAxis: 'y'`) is given a line of height
 * per label, so every label is shown (none skipped) over a plot area that never shrinks below 200 px; on a narrow
 * canvas (a phone), where Chart.js gives the labels half the width at most and the longest would not fit, a long data
 * type's name is broken after its hyphen over two lines rather than cut off. A legend is drawn only for 2 to 12 series (one series needs none,
 * more would crowd out the plot).
 */
const SCRIPT = `(function () {
  'use strict';
  var colours = ['#0550ae', '#bc4c00', '#1a7f37', '#8250df', '#a40e26', '#4d2d00', '#116329', '#6e7781'];
  var MAX_LEGEND = 12;
  function twoLines(label) {
    var text = String(label);
    var at = text.indexOf('-');
    return text.length > 16 && at > 0 ? [text.slice(0, at + 1), text.slice(at + 1)] : text;
  }
  // The width of the widest label in Chart.js's own tick font.
  function widest(labels) {
    var font = window.Chart.defaults.font;
    var ctx = document.createElement('canvas').getContext('2d');
    ctx.font = (font.style || 'normal') + ' ' + (font.weight || 'normal') + ' ' + font.size + 'px ' + font.family;
    return labels.reduce(function (max, label) { return Math.max(max, ctx.measureText(String(label)).width); }, 0);
  }
  function draw(canvas) {
    fetch(canvas.getAttribute('data-chart-src'), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (res) { return res.ok ? res.json() : Promise.reject(new Error(String(res.status))); })
      .then(function (spec) {
        var horizontal = spec.indexAxis === 'y';
        // Chart.js lets a vertical axis take half the width: past that (with its tick and padding), labels would be cut.
        var crowded = horizontal && widest(spec.labels) + 24 > canvas.parentNode.clientWidth / 2;
        var labels = crowded ? spec.labels.map(twoLines) : spec.labels;
        var lines = labels.some(Array.isArray) ? 2 : 1;
        var datasets = spec.datasets.map(function (d, i) {
          var colour = colours[i % colours.length];
          return { label: d.label, data: d.data, borderColor: colour, backgroundColor: colour, spanGaps: true, pointRadius: 2 };
        });
        // Set through the CSSOM (the CSP forbids style attributes, not this): a row per label, axes and title beside.
        if (horizontal) canvas.parentNode.style.height = Math.max(288, labels.length * (lines === 2 ? 34 : 20) + 80) + 'px';
        // Every label is drawn: one per bar when laid out horizontally, or the chart's own short ones (a time axis).
        var category = spec.tickLabels
          ? { ticks: { autoSkip: false, maxRotation: 0, callback: function (value, index) { return spec.tickLabels[index]; } } }
          : { ticks: { autoSkip: !horizontal } };
        var value = { beginAtZero: true, title: { display: !!spec.valueTitle, text: spec.valueTitle || '' } };
        new window.Chart(canvas, {
          type: spec.type,
          data: { labels: labels, datasets: datasets },
          options: {
            animation: false,
            maintainAspectRatio: false,
            indexAxis: horizontal ? 'y' : 'x',
            plugins: { legend: { display: datasets.length > 1 && datasets.length <= MAX_LEGEND } },
            scales: horizontal ? { x: value, y: category } : { x: category, y: value }
          }
        });
        canvas.setAttribute('data-drawn', 'true');
      })
      .catch(function () { canvas.setAttribute('data-drawn', 'failed'); });
  }
  function start() {
    if (!window.Chart) return;
    Array.prototype.forEach.call(document.querySelectorAll('canvas[data-chart-src]'), draw);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;

function chartJsSource(): string {
  // The package's exports name only its modules; its UMD build sits beside them in dist/.
  const main = createRequire(import.meta.url).resolve('chart.js');
  return readFileSync(path.join(path.dirname(main), 'chart.umd.min.js'), 'utf8');
}

export interface PortalAsset {
  /** Content-hashed file name, e.g. `portal.3f9a1c2e.css`. */
  name: string;
  contentType: string;
  body: string;
}

function asset(base: string, ext: string, contentType: string, body: string): PortalAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { name: `${base}.${hash}.${ext}`, contentType, body };
}

let loaded: { css: PortalAsset; script: PortalAsset; chartJs: PortalAsset } | undefined;

/** The three assets, read once. */
export function portalAssets() {
  loaded ??= {
    css: asset('portal', 'css', 'text/css; charset=utf-8', CSS),
    script: asset('charts', 'js', 'text/javascript; charset=utf-8', SCRIPT),
    chartJs: asset('chart.umd', 'js', 'text/javascript; charset=utf-8', chartJsSource()),
  };
  return loaded;
}
