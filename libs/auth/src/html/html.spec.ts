import { escapeHtml, html } from './html';

describe('html template', () => {
  it('escapes every interpolated string, in content and attributes', () => {
    const evil = `"><script>alert('x')</script>&`;
    expect(html`<input value="${evil}"><p>${evil}</p>`.value).toBe(
      '<input value="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"><p>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
  });

  it('nests fragments without escaping them twice, and drops empty values', () => {
    const inner = html`<b>${'a & b'}</b>`;
    expect(html`<p>${inner}${null}${undefined}${false}${[html`<i>1</i>`, '<2>']}</p>`.value).toBe('<p><b>a &amp; b</b><i>1</i>&lt;2&gt;</p>');
  });

  it('escapes the five significant characters', () => {
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });
});
