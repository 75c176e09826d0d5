// The log-in page: POST /api/v1/login, then back to where the user was
// sent from (a same-origin path only).
import { api, ApiError, note, put, param, safeNext } from './common.js';

window.addEventListener('DOMContentLoaded', () => {
  const form = document.getElementById('login-form');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    put('login-error');
    const user = document.getElementById('login-user').value;
    const password = document.getElementById('login-password').value;
    try {
      await api('login', null, { method: 'POST', body: { user, password },
                                 noRedirect: true });
      location.assign(safeNext(param('next')));
    } catch (e) {
      let msg = 'Log-in failed: ' + (e && e.message);
      if (e instanceof ApiError && e.status === 401)
        msg = 'Wrong user name or password.';
      else if (e instanceof ApiError && e.status === 429)
        msg = 'Too many failed log-ins: wait a few minutes.';
      put('login-error', note('error', msg));
    }
  });
});
