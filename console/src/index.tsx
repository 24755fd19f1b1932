import { render } from 'preact';
import { App } from './app.js';
import { CSS } from './style.js';
import * as store from './store.js';

const style = document.createElement('style');
style.textContent = CSS;
document.head.append(style);

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) store.onVisible();
});

render(<App />, document.getElementById('console') as HTMLElement);
if (store.token.value) void store.start();
