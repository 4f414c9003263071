import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Small apps built the way real sites are (routers, guards, redirects, form libraries), each
 * in one page. Served with the tracker's snippet or without it, so a test can show that the
 * tracker records what a person did and that the app behaves the same either way. Apps log
 * what they do to the console, paths only, so two servers' logs compare equal.
 */
// A router's links: a click pushes the address and renders the route.
const LINKS = `document.addEventListener('click', (event) => {
         const link = event.target.closest('a[data-link]');
         if (!link) return;
         event.preventDefault();
         history.pushState({}, '', link.getAttribute('href'));
         render();
       });`;

const APPS: Record<string, (snippet: string) => string> = {
  // A history router that sets the title after pushState, as a framework's effect does.
  history: (snippet) =>
    page(
      'App',
      snippet,
      `<nav><a href="/history/" data-link>Home</a> <a href="/history/one" data-link>One</a>
       <a href="/history/two" data-link>Two</a></nav><main id="view"></main>`,
      `const titles = { '/history/': 'Home', '/history/one': 'One', '/history/two': 'Two' };
       function render() {
         const path = location.pathname;
         document.getElementById('view').textContent = 'Page ' + titles[path];
         console.log('render ' + path);
         setTimeout(() => { document.title = titles[path]; }, 120);
       }
       ${LINKS}
       addEventListener('popstate', render);
       render();`,
    ),

  // A guard that undoes a popstate while the form has unsaved changes.
  guard: (snippet) =>
    page(
      'Items',
      snippet,
      `<nav><a href="/guard/list" data-link>List</a> <a href="/guard/edit" data-link>Edit</a></nav>
       <p id="notice"></p><main id="view"></main>`,
      `let dirty = false;
       let current = location.pathname;
       function render() {
         current = location.pathname;
         const edit = current === '/guard/edit';
         document.getElementById('view').innerHTML = edit
           ? '<form id="item" name="item"><input name="item_title"><button>Save</button></form>'
           : '<p>All items</p>';
         document.title = edit ? 'Edit item' : 'Items';
         console.log('render ' + current);
       }
       document.addEventListener('input', () => { dirty = true; });
       document.addEventListener('submit', (event) => {
         event.preventDefault();
         dirty = false;
         document.getElementById('notice').textContent = 'Saved';
         console.log('saved');
       });
       ${LINKS}
       addEventListener('popstate', () => {
         if (dirty) {
           history.pushState({}, '', current);
           document.getElementById('notice').textContent = 'You have unsaved changes';
           console.log('blocked ' + current);
           return;
         }
         render();
       });
       render();`,
    ),

  // A protected route that redirects with replace, after rendering, as <Navigate replace> does.
  redirect: (snippet) =>
    page(
      'Shop',
      snippet,
      `<nav><a href="/redirect/" data-link>Home</a> <a href="/redirect/account" data-link>Account</a></nav>
       <main id="view"></main>`,
      `const titles = { '/redirect/': 'Home', '/redirect/account': 'Account', '/redirect/login': 'Log in' };
       function render() {
         const path = location.pathname;
         document.getElementById('view').textContent = titles[path];
         document.title = titles[path];
         console.log('render ' + path);
         if (path === '/redirect/account') {
           setTimeout(() => {
             history.replaceState({}, '', '/redirect/login');
             render();
           }, 0);
         }
       }
       ${LINKS}
       addEventListener('popstate', render);
       render();`,
    ),

  // Two ordinary pages, which Back and Forward restore from the back-forward cache.
  cache: (snippet) =>
    page(
      'Page',
      snippet,
      `<h1 id="name"></h1><a href="/cache/b">To B</a> <a href="/cache/a">To A</a>
       <ol id="shows"></ol>`,
      `const name = location.pathname.slice(-1).toUpperCase();
       document.title = 'Page ' + name;
       document.getElementById('name').textContent = 'Page ' + name;
       addEventListener('pageshow', (event) => {
         const item = document.createElement('li');
         item.textContent = 'shown, persisted: ' + event.persisted;
         document.getElementById('shows').append(item);
         console.log('pageshow ' + location.pathname + ' persisted=' + event.persisted);
       });`,
    ),

  // A form sent by script (form.submit()) and then reset, and a form cleared by its reset button.
  reset: (snippet) =>
    page(
      'Enquiry',
      snippet,
      `<form id="enquiry" name="enquiry" action="/reset/sink" method="post" target="sink">
         <input name="full_name"> <input name="email"> <input name="topic" value="General">
         <button type="button" id="send">Send</button>
       </form>
       <iframe name="sink" title="sink" hidden></iframe>
       <form id="filters" name="filters"><input name="search"><button type="reset">Clear</button></form>
       <p id="status"></p>`,
      `document.getElementById('send').addEventListener('click', () => {
         const form = document.getElementById('enquiry');
         form.submit();
         form.reset();
         document.getElementById('status').textContent = 'Sent';
         console.log('sent');
       });`,
    ),

  // A hash router, TodoMVC's way.
  hash: (snippet) =>
    page(
      'Todos',
      snippet,
      `<nav><a href="#/">All</a> <a href="#/active">Active</a> <a href="#/completed">Completed</a></nav>
       <p id="filter"></p>`,
      `const names = { '#/active': 'Active', '#/completed': 'Completed' };
       function render() {
         const name = names[location.hash.split('?')[0]] || 'All';
         document.getElementById('filter').textContent = 'Showing ' + name;
         document.title = 'Todos: ' + name;
         console.log('filter ' + name);
       }
       addEventListener('hashchange', render);
       render();`,
    ),

  // TodoMVC: a hash router over a list kept in localStorage, styled by a stylesheet in the
  // head (before the snippet, as sites paste it) that is slow the first time, cached after.
  todos: (snippet) =>
    page(
      'Todos',
      `<link rel="stylesheet" href="/todos/app.css">${snippet}`,
      `<h1>todos</h1><input id="new" aria-label="What needs to be done?">
       <ul id="list"></ul>
       <nav><a href="#/">All</a> <a href="#/active">Active</a> <a href="#/completed">Completed</a></nav>`,
      `const todos = JSON.parse(localStorage.getItem('todos') || '[]');
       function render() {
         const filter = location.hash.slice(2) || 'all';
         const shown = todos.filter((todo) => filter === 'all' || (filter === 'completed') === todo.done);
         document.getElementById('list').innerHTML = shown
           .map((todo, i) => '<li><label><input type="checkbox" data-i="' + i + '"' + (todo.done ? ' checked' : '') + '> ' + todo.title + '</label></li>')
           .join('');
         console.log('filter ' + filter + ': ' + shown.length);
       }
       document.getElementById('new').addEventListener('keydown', (event) => {
         if (event.key !== 'Enter' || !event.target.value.trim()) return;
         todos.push({ title: event.target.value.trim(), done: false });
         localStorage.setItem('todos', JSON.stringify(todos));
         event.target.value = '';
         render();
       });
       document.getElementById('list').addEventListener('change', (event) => {
         todos[event.target.dataset.i].done = event.target.checked;
         localStorage.setItem('todos', JSON.stringify(todos));
         render();
       });
       addEventListener('hashchange', render);
       render();`,
    ),

  // A one-time code and a card expiry, known by autocomplete or by name only.
  verify: (snippet) =>
    page(
      'Verify',
      snippet,
      `<form id="verify" name="verify" action="/verify/done" method="post">
         <input name="email" type="email">
         <input name="code" autocomplete="one-time-code" inputmode="numeric">
         <input name="valid_thru" autocomplete="cc-exp">
         <input name="cc_exp">
         <button>Verify</button>
       </form>`,
      `console.log('ready');`,
    ),
};

function page(title: string, snippet: string, body: string, script: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${snippet}</head>
<body>${body}<script>${script}</script></body></html>`;
}

// A stylesheet on a slow first connection (a CDN far away), then cached: what keeps a first
// visit's inline scripts, the snippet among them, waiting.
const SLOW_STYLESHEET_MS = 2000;

/**
 * The apps on a loopback address of their own: `/{app}/…` serves the app (any path below it,
 * as a single-page app's server does), `/{app}-opt-in/…` a hash router with the snippet's
 * `data-hash-routing`, and `/end` a page without the snippet to leave to.
 */
export function serveApps(snippet: string): Promise<{ url: string; close: () => void }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    const [, name = ''] = path.split('/');
    let html: string | undefined;
    if (path.endsWith('.css')) {
      setTimeout(() => {
        response.writeHead(200, {
          'content-type': 'text/css',
          'cache-control': 'max-age=3600',
        });
        response.end('body { font-family: sans-serif; }');
      }, SLOW_STYLESHEET_MS);
      return;
    }
    if (name.endsWith('-opt-in')) {
      html = APPS[name.slice(0, -'-opt-in'.length)]?.(
        snippet.replace('<script>', '<script data-hash-routing>'),
      );
    } else if (name === 'end' || path.endsWith('/sink') || path.endsWith('/done')) {
      html = page('Done', '', '<p>Done</p>', '');
    } else {
      html = APPS[name]?.(snippet);
    }
    response.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html ?? 'not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.2', () =>
      resolve({
        url: `http://127.0.0.2:${(server.address() as AddressInfo).port}`,
        close: () => server.close(),
      }),
    ),
  );
}
