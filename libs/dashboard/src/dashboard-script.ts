/**
 * The one script file of the dashboard (`/assets/dashboard.js`): Copy buttons. Every page works
 * without it: the buttons stay hidden and the read-only fields select their whole text on focus
 * instead. Where the Clipboard API is unavailable (a page served over plain http to another
 * machine), Copy selects the text and says to press Ctrl+C / ⌘C.
 */
export const DASHBOARD_SCRIPT = `'use strict';
(function () {
  function status(id, text) {
    var el = document.querySelector('[data-copy-status="' + id + '"]');
    if (el) el.textContent = text;
  }
  document.querySelectorAll('button[data-copy]').forEach(function (button) { button.hidden = false; });
  document.addEventListener('focusin', function (event) {
    var t = event.target;
    if (t && t.hasAttribute && t.hasAttribute('data-select-all') && typeof t.select === 'function') t.select();
  });
  document.addEventListener('click', function (event) {
    var button = event.target && event.target.closest ? event.target.closest('button[data-copy]') : null;
    if (!button) return;
    var id = button.getAttribute('data-copy');
    var field = document.getElementById(id);
    if (!field) return;
    var fallback = function () {
      field.focus();
      field.select();
      status(id, 'Selected: press Ctrl+C (or \\u2318C) to copy.');
    };
    if (!navigator.clipboard || !window.isSecureContext) return fallback();
    navigator.clipboard.writeText(field.value).then(function () {
      button.textContent = 'Copied';
      status(id, 'Copied to the clipboard.');
    }, fallback);
  });
})();
`;
