// Not built yet: the page says so and points to the admin API.
import { h, mount } from '../dom.js';

export async function render(main) {
  mount(main, h('h1', null, document.title = 'context'), h('p', null, 'This page is not available yet; the admin API at ', h('a', { href: '/docs/openapi/' }, '/docs/openapi/'), ' does everything.'));
}
