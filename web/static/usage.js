// A flag's use from client metrics: per environment, yes/no counts of the
// last 48 hours as a small bar chart (inline SVG), variant counts, and when
// each application last reported it.
import { h, mount, fmtDate } from './dom.js';
import { api, enc } from './api.js';

const svgNS = 'http://www.w3.org/2000/svg';

function s(tag, attrs, ...children) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

// renderUsage fills box with the usage of flag.
export async function renderUsage(box, flag) {
  const data = await api('GET', `/api/admin/client-metrics/features/${enc(flag)}/raw?hoursBack=48`);
  const rows = data.data || [];
  if (!rows.length) {
    mount(box, h('p', { class: 'muted' }, 'No SDK has reported this flag in the last 48 hours.'));
    return;
  }
  const now = new Date();
  now.setUTCMinutes(0, 0, 0);
  const start = now.getTime() - 47 * 3600e3;
  const byEnv = new Map();
  const lastSeen = new Map();
  for (const m of rows) {
    const t = new Date(m.timestamp).getTime();
    if (!byEnv.has(m.environment)) byEnv.set(m.environment, { yes: 0, no: 0, variants: {}, hours: Array.from({ length: 48 }, () => ({ yes: 0, no: 0 })) });
    const e = byEnv.get(m.environment);
    e.yes += m.yes;
    e.no += m.no;
    for (const [v, n] of Object.entries(m.variants || {})) e.variants[v] = (e.variants[v] || 0) + n;
    const i = Math.round((t - start) / 3600e3);
    if (i >= 0 && i < 48) {
      e.hours[i].yes += m.yes;
      e.hours[i].no += m.no;
    }
    if (!lastSeen.has(m.appName) || lastSeen.get(m.appName) < t) lastSeen.set(m.appName, t);
  }
  mount(box,
    [...byEnv.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([env, e]) => h('div', { class: 'usage', 'data-usage-env': env },
      h('h3', null, env),
      h('p', { class: 'usage-totals' }, `${e.yes} yes, ${e.no} no in the last 48 hours`,
        Object.keys(e.variants).length ? `; variants: ${Object.entries(e.variants).map(([v, n]) => `${v} ${n}`).join(', ')}` : ''),
      chart(env, e.hours))),
    h('h3', null, 'Last reported by application (hour)'),
    h('ul', { class: 'apps' }, [...lastSeen.entries()].sort(([a], [b]) => a.localeCompare(b))
      .map(([app, t]) => h('li', null, h('code', null, app), ` ${fmtDate(new Date(t).toISOString())}`))));
}

// chart draws 48 hourly bars: yes stacked on no.
function chart(env, hours) {
  const max = Math.max(1, ...hours.map((x) => x.yes + x.no));
  const w = 480;
  const hgt = 60;
  const bw = w / hours.length;
  const total = hours.reduce((n, x) => n + x.yes + x.no, 0);
  const svg = s('svg', { viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', class: 'usage-chart',
    'aria-label': `Evaluations per hour in ${env} over the last 48 hours: ${total} in all, at most ${max} in one hour` });
  hours.forEach((x, i) => {
    const yesH = (x.yes / max) * hgt;
    const noH = (x.no / max) * hgt;
    if (noH > 0) svg.append(s('rect', { class: 'no', x: i * bw + 1, y: hgt - noH, width: bw - 2, height: noH }));
    if (yesH > 0) svg.append(s('rect', { class: 'yes', x: i * bw + 1, y: hgt - noH - yesH, width: bw - 2, height: yesH }));
  });
  return svg;
}
