import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UriTemplate } from '../uri-template.ts';

/** match() returns a null-prototype object; copy it so deepEqual compares own properties only. */
function matched(template: string, uri: string): Record<string, string | string[]> | undefined {
  const result = new UriTemplate(template).match(uri);
  return result === undefined ? undefined : { ...result };
}

test('simple expressions decode their percent-encoded UTF-8 values', () => {
  assert.deepEqual(matched('x://{var}', 'x://a%20b%2F%C3%A9'), { var: 'a b/é' });
  assert.deepEqual(matched('x://{var}', 'x://A-z_0.9~%21%2A%27%28%29'), { var: "A-z_0.9~!*'()" });
  assert.deepEqual(matched('x://{var}', 'x://%F0%9F%98%80'), { var: '😀' });
  assert.deepEqual(matched('x://{var}', 'x://%EF%BF%BD'), { var: '\ufffd' });
});

test('the example resource template matches one segment only', () => {
  assert.deepEqual(matched('test://template/{id}/data', 'test://template/123/data'), { id: '123' });
  assert.equal(matched('test://template/{id}/data', 'test://template/1/2/data'), undefined);
  assert.equal(matched('test://template/{id}/data', 'test://template//data'), undefined);
});

test('reserved expressions take reserved characters and decode escapes', () => {
  assert.deepEqual(matched('file:///{+path}', 'file:///a/b/c.txt'), { path: 'a/b/c.txt' });
  assert.deepEqual(matched('file:///{+path}', 'file:///a/b%20c/d?e#f[1]'), { path: 'a/b c/d?e#f[1]' });
  assert.deepEqual(matched('file:///{+path}', 'file:///50%25%20and%205%25'), { path: '50% and 5%' });
});

test('reserved values still let the following literal match', () => {
  assert.deepEqual(matched('x://{+dir}/meta', 'x://a/b/meta'), { dir: 'a/b' });
  assert.deepEqual(matched('x://{+a}/x/{+b}', 'x://1/2/x/3/4'), { a: '1/2', b: '3/4' });
  assert.equal(matched('x://{+dir}/meta', 'x://a/b/meta/c'), undefined);
});

test('fragment expressions follow # and take reserved characters', () => {
  assert.deepEqual(matched('doc://page{#section}', 'doc://page#a/b%20c'), { section: 'a/b c' });
  assert.equal(matched('doc://page{#section}', 'doc://page/a'), undefined);
});

test('label and path expressions use their prefixes', () => {
  assert.deepEqual(matched('x://host{.ext}', 'x://host.json'), { ext: 'json' });
  assert.deepEqual(matched('x://{name}{.ext}', 'x://report.json'), { name: 'report', ext: 'json' });
  assert.deepEqual(matched('x://h{/a,b}', 'x://h/1/2%2F3'), { a: '1', b: '2/3' });
  assert.equal(matched('x://h{/a}', 'x://h/1/2'), undefined);
});

test('several variables in one simple expression are separated by commas', () => {
  assert.deepEqual(matched('x://{x,y}', 'x://1,2'), { x: '1', y: '2' });
  assert.deepEqual(matched('x://{x,y}', 'x://a%2Cb,2'), { x: 'a,b', y: '2' });
  assert.deepEqual(matched('x://{x}', 'x://1,2'), { x: '1,2' });
});

test('exploded path segments match as a list', () => {
  const t = new UriTemplate('repo://{owner}/{repo}{/path*}');
  const uri = 'repo://me/mcp/src/a%20b.ts';
  assert.deepEqual(matched(t.template, uri), { owner: 'me', repo: 'mcp', path: ['src', 'a b.ts'] });
  assert.deepEqual(matched(t.template, 'repo://me/mcp/one'), { owner: 'me', repo: 'mcp', path: ['one'] });
  assert.equal(matched(t.template, 'repo://me/mcp'), undefined);
});

test('exploded lists split on the operator separator; unexploded ones stay one value', () => {
  assert.deepEqual(matched('x://{list}', 'x://a,b%20c'), { list: 'a,b c' });
  assert.deepEqual(matched('x://{.list*}', 'x://.a.b'), { list: ['a', 'b'] });
  assert.deepEqual(matched('x://{?list}', 'x://?list=a,b'), { list: 'a,b' });
  assert.deepEqual(matched('x://{list*}', 'x://a,b%20c'), { list: ['a', 'b c'] });
  assert.deepEqual(matched('x://{?list*}', 'x://?list=a&list=b'), { list: ['a', 'b'] });
});

test('query parameters match in any order and may be absent', () => {
  const template = 'search://q{?term,limit}';
  assert.deepEqual(matched(template, 'search://q?limit=5&term=hi%20there'), { term: 'hi there', limit: '5' });
  assert.deepEqual(matched(template, 'search://q?term=x'), { term: 'x' });
  assert.deepEqual(matched(template, 'search://q'), {});
  assert.deepEqual(matched(template, 'search://q?term='), { term: '' });
  assert.equal(matched(template, 'search://q?other=1'), undefined);
  assert.equal(matched(template, 'search://q?term=1&term=2'), undefined);
  assert.equal(matched(template, 'search://q?'), undefined);
});

test('a query expression continues with {&…}, its variables absent or in any order', () => {
  const t = new UriTemplate('search://q{?term,limit}{&page}');
  assert.deepEqual(matched(t.template, 'search://q?term=a%26b%3Dc&page=2'), { term: 'a&b=c', page: '2' });
  assert.deepEqual(matched(t.template, 'search://q'), {});
  assert.deepEqual(matched(t.template, 'search://q?page=2&term=a%26b%3Dc'), { term: 'a&b=c', page: '2' });
  assert.deepEqual(matched('x://a?fixed=1{&b}', 'x://a?fixed=1&b=2'), { b: '2' });
});

test('ordinary values match back from their RFC 6570 expansion', () => {
  const cases: [string, string, Record<string, string | string[]>][] = [
    ['test://template/{id}/data', 'test://template/a%20b%2Fc%3Fd%23e%26f%252F/data', { id: 'a b/c?d#e&f%2F' }],
    ['file:///{+path}', 'file:///dir/sub%20dir/na%C3%AFve.txt', { path: 'dir/sub dir/naïve.txt' }],
    ['repo://{owner}/{repo}{/path*}', 'repo://o/r/a/b%2Fc/d%20e', { owner: 'o', repo: 'r', path: ['a', 'b/c', 'd e'] }],
    [
      'search://q{?term,limit}',
      'search://q?term=hi%20there%20%26%20more&limit=10',
      { term: 'hi there & more', limit: '10' },
    ],
    ['x://{a}.{b}{#frag}', 'x://one.two#top/x', { a: 'one', b: 'two', frag: 'top/x' }],
  ];
  for (const [template, uri, values] of cases) assert.deepEqual(matched(template, uri), values, template);
});

test('malformed templates throw TypeError', () => {
  for (const template of [
    'x://{id',
    'x://{a}}',
    'x://{}',
    'x://{+}',
    'x://{a,}',
    'x://{a-b}',
    'x://{a b}',
    'x://{.a.}',
    'x://{a{b}}',
    'x://{;a}',
    'x://{=a}',
    'x://{a:3}',
    'x://{a}/{a}',
    'x://{a}{?a}',
    `x://${'a'.repeat(4100)}`,
  ]) {
    assert.throws(() => new UriTemplate(template), TypeError, template);
  }
});

test('every variable of every operator is matched, dotted and escaped names included', () => {
  const t = new UriTemplate('x://{a}/{+b.c}{/d*}{?e,f}{&g}');
  assert.deepEqual(matched(t.template, 'x://1/2/3/4?e=5&f=6&g=7'), {
    a: '1',
    'b.c': '2',
    d: ['3', '4'],
    e: '5',
    f: '6',
    g: '7',
  });
  assert.deepEqual(matched('x://{a%20b}', 'x://1'), { 'a%20b': '1' });
  assert.equal(t.template, 'x://{a}/{+b.c}{/d*}{?e,f}{&g}');
});

test('non-matching uris give undefined', () => {
  const t = new UriTemplate('test://template/{id}/data');
  for (const uri of ['', 'test://template/', 'test://template/1/data/', 'TEST://template/1/data', 'x']) {
    assert.equal(t.match(uri), undefined, uri);
  }
  assert.equal(t.match(42 as unknown as string), undefined);
});

test('malformed percent escapes fail the match instead of throwing', () => {
  assert.equal(matched('x://{id}', 'x://%E0%A4%A'), undefined);
  assert.equal(matched('x://{id}', 'x://%zz'), undefined);
  assert.equal(matched('x://{id}', 'x://%C3'), undefined);
  assert.equal(matched('x://q{?a}', 'x://q?a=%'), undefined);
  assert.equal(matched('x://{/p*}', 'x://a/%FF'), undefined);
});

test('values carrying delimiters cannot escape their variable', () => {
  const t = new UriTemplate('x://{owner}/{name}');
  const uri = 'x://..%2Fadmin%3Fx%3D1%23y/%252F';
  assert.deepEqual(matched(t.template, uri), { owner: '../admin?x=1#y', name: '%2F' });
  assert.equal(matched(t.template, 'x://a/b/c'), undefined);
  assert.equal(matched(t.template, 'x://a/b?c'), undefined);
  assert.equal(matched(t.template, 'x://a/b#c'), undefined);
  assert.deepEqual(matched(t.template, 'x://a%2Fb/c'), { owner: 'a/b', name: 'c' });
});

test('regex metacharacters in literals match only themselves', () => {
  const template = 'a.b+c(d)[e]^$|*?{x}\\';
  assert.deepEqual(matched(template, 'a.b+c(d)[e]^$|*?1\\'), { x: '1' });
  assert.equal(matched(template, 'aXbbc(d)[e]^$|*?1\\'), undefined);
  assert.equal(matched(template, 'a.bbc(d)[e]^$|*?1\\'), undefined);
});

test('__proto__ and other Object.prototype names are ordinary variables', () => {
  const t = new UriTemplate('x://{__proto__}/{constructor}');
  assert.deepEqual(matched('x://{toString}', 'x://s'), { toString: 's' });
  const result = t.match('x://p/c');
  assert.ok(result !== undefined);
  assert.equal(Object.getPrototypeOf(result), null);
  assert.equal(result.__proto__, 'p');
  assert.equal(result.constructor, 'c');
  assert.equal(({} as Record<string, unknown>).p, undefined);
  assert.deepEqual(matched('x://q{?__proto__}', 'x://q?__proto__=v'), { ['__proto__']: 'v' });
});

test('a 20000-character uri returns undefined', () => {
  const t = new UriTemplate('file:///{+path}');
  assert.equal(t.match(`file:///${'a'.repeat(20000)}`), undefined);
  assert.deepEqual({ ...t.match(`file:///${'a'.repeat(16000)}`) }, { path: 'a'.repeat(16000) });
});

test('crafted uris against several reserved variables complete without backtracking', () => {
  const spaced = new UriTemplate('x://{+a}/{+b}/{+c}/{+d}/end');
  assert.equal(spaced.match(`x://${'/'.repeat(16000)}`), undefined);
  assert.equal(spaced.match(`x://${'a/'.repeat(8000)}`), undefined);
  const adjacent = new UriTemplate('x://{+a}{+b}{+c}{+d}!');
  assert.equal(adjacent.match(`x://${'a'.repeat(16000)}`), undefined);
  const literals = new UriTemplate('x://{a}.x{b}.x{c}.x{d}.x{?q}');
  assert.equal(literals.match(`x://${'.x'.repeat(8000)}`), undefined);
  const query = new UriTemplate('x://q{?a,b}');
  assert.equal(query.match(`x://q?${'a=1&'.repeat(4000)}`), undefined);
  assert.deepEqual(
    { ...new UriTemplate('x://q{?a*}').match(`x://q?${'&a=1'.repeat(4000).slice(1)}`) },
    {
      a: Array.from({ length: 4000 }, () => '1'),
    },
  );
});
