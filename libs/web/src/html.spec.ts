import { escapeHtml, html, raw, SafeHtml } from './html';

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

  it('escapes numbers and other values through their text, and keeps 0', () => {
    expect(html`<p>${0}${42}${{ toString: () => '<o>' }}</p>`.value).toBe('<p>042&lt;o&gt;</p>');
  });

  it('passes raw() markup through unescaped, and only that', () => {
    expect(html`<style>${raw('a>b{}')}</style>${'a>b'}`.value).toBe('<style>a>b{}</style>a&gt;b');
    expect(raw('<b>')).toBeInstanceOf(SafeHtml);
    expect(`${html`<i>${'&'}</i>`}`).toBe('<i>&amp;</i>');
  });

  it('escapes the five significant characters, and nothing else', () => {
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
    expect(escapeHtml('plain text / é ✓')).toBe('plain text / é ✓');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
  });
});
