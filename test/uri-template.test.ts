import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UriTemplate } from '../uri-template.ts';

/** match() returns a null-prototype object; copy it so deepEqual compares own properties only. */
function matched(template: string, uri: string): Record<string, string | string[]> | undefined {
  const result = new UriTemplate(template).match(uri);
  return result === undefined ? undefined : { ...result };
}

test('simple expressions percent-encode everything but unreserved characters', () => {
  const t = new UriTemplate('x://{var}');
  assert.equal(t.expand({ var: 'a b/é' }), 'x://a%20b%2F%C3%A9');
  assert.equal(t.expand({ var: "A-z_0.9~!*'()" }), 'x://A-z_0.9~%21%2A%27%28%29');
  assert.equal(t.expand({ var: '😀' }), 'x://%F0%9F%98%80');
  assert.equal(t.expand({ var: '\ud800' }), 'x://%EF%BF%BD');
  assert.deepEqual(matched('x://{var}', 'x://a%20b%2F%C3%A9'), { var: 'a b/é' });
});

test('the example resource template matches one segment only', () => {
  assert.deepEqual(matched('test://template/{id}/data', 'test://template/123/data'), { id: '123' });
  assert.equal(matched('test://template/{id}/data', 'test://template/1/2/data'), undefined);
  assert.equal(matched('test://template/{id}/data', 'test://template//data'), undefined);
});

test('reserved expansion keeps reserved characters and existing escapes', () => {
  const t = new UriTemplate('file:///{+path}');
  assert.equal(t.expand({ path: 'a/b c/d?e#f[1]' }), 'file:///a/b%20c/d?e#f[1]');
  assert.equal(t.expand({ path: '50%25 and 5%' }), 'file:///50%25%20and%205%25');
  assert.deepEqual(matched('file:///{+path}', 'file:///a/b/c.txt'), { path: 'a/b/c.txt' });
});

test('reserved values still let the following literal match', () => {
  assert.deepEqual(matched('x://{+dir}/meta', 'x://a/b/meta'), { dir: 'a/b' });
  assert.deepEqual(matched('x://{+a}/x/{+b}', 'x://1/2/x/3/4'), { a: '1/2', b: '3/4' });
  assert.equal(matched('x://{+dir}/meta', 'x://a/b/meta/c'), undefined);
});

test('fragment expansion prefixes # and keeps reserved characters', () => {
  const t = new UriTemplate('doc://page{#section}');
  assert.equal(t.expand({ section: 'a/b c' }), 'doc://page#a/b%20c');
  assert.deepEqual(matched('doc://page{#section}', 'doc://page#a/b%20c'), { section: 'a/b c' });
});

test('label and path expansions use their prefixes', () => {
  assert.equal(new UriTemplate('x://host{.ext}').expand({ ext: 'json' }), 'x://host.json');
  assert.deepEqual(matched('x://{name}{.ext}', 'x://report.json'), { name: 'report', ext: 'json' });
  assert.equal(new UriTemplate('x://h{/a,b}').expand({ a: '1', b: '2/3' }), 'x://h/1/2%2F3');
  assert.deepEqual(matched('x://h{/a,b}', 'x://h/1/2%2F3'), { a: '1', b: '2/3' });
  assert.equal(matched('x://h{/a}', 'x://h/1/2'), undefined);
});

test('several variables in one simple expression are separated by commas', () => {
  const t = new UriTemplate('x://{x,y}');
  assert.equal(t.expand({ x: '1', y: '2' }), 'x://1,2');
  assert.equal(t.expand({ x: 'a,b', y: '2' }), 'x://a%2Cb,2');
  assert.deepEqual(matched('x://{x,y}', 'x://1,2'), { x: '1', y: '2' });
  assert.deepEqual(matched('x://{x}', 'x://1,2'), { x: '1,2' });
});

test('exploded path segments expand and match as a list', () => {
  const t = new UriTemplate('repo://{owner}/{repo}{/path*}');
  const uri = t.expand({ owner: 'me', repo: 'mcp', path: ['src', 'a b.ts'] });
  assert.equal(uri, 'repo://me/mcp/src/a%20b.ts');
  assert.deepEqual(matched(t.template, uri), { owner: 'me', repo: 'mcp', path: ['src', 'a b.ts'] });
  assert.deepEqual(matched(t.template, 'repo://me/mcp/one'), { owner: 'me', repo: 'mcp', path: ['one'] });
  assert.equal(matched(t.template, 'repo://me/mcp'), undefined);
});

test('lists without explode join with commas; other explodes use the operator separator', () => {
  assert.equal(new UriTemplate('x://{list}').expand({ list: ['a', 'b c'] }), 'x://a,b%20c');
  assert.equal(new UriTemplate('x://{.list*}').expand({ list: ['a', 'b'] }), 'x://.a.b');
  assert.equal(new UriTemplate('x://{?list}').expand({ list: ['a', 'b'] }), 'x://?list=a,b');
  assert.equal(new UriTemplate('x://{?list*}').expand({ list: ['a', 'b'] }), 'x://?list=a&list=b');
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

test('query expansion skips undefined variables and continues with {&…}', () => {
  const t = new UriTemplate('search://q{?term,limit}{&page}');
  assert.equal(t.expand({ term: 'a&b=c', page: '2' }), 'search://q?term=a%26b%3Dc&page=2');
  assert.equal(t.expand({}), 'search://q');
  assert.deepEqual(matched(t.template, 'search://q?page=2&term=a%26b%3Dc'), { term: 'a&b=c', page: '2' });
  assert.deepEqual(matched('x://a?fixed=1{&b}', 'x://a?fixed=1&b=2'), { b: '2' });
});

test('expansion round-trips through match for ordinary values', () => {
  const cases: [string, Record<string, string | string[]>][] = [
    ['test://template/{id}/data', { id: 'a b/c?d#e&f%2F' }],
    ['file:///{+path}', { path: 'dir/sub dir/naïve.txt' }],
    ['repo://{owner}/{repo}{/path*}', { owner: 'o', repo: 'r', path: ['a', 'b/c', 'd e'] }],
    ['search://q{?term,limit}', { term: 'hi there & more', limit: '10' }],
    ['x://{a}.{b}{#frag}', { a: 'one', b: 'two', frag: 'top/x' }],
  ];
  for (const [template, values] of cases) {
    const t = new UriTemplate(template);
    assert.deepEqual(matched(template, t.expand(values)), values, template);
  }
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

test('variable names and their order are reported', () => {
  const t = new UriTemplate('x://{a}/{+b.c}{/d*}{?e,f}{&g}');
  assert.deepEqual(t.variableNames, ['a', 'b.c', 'd', 'e', 'f', 'g']);
  assert.equal(t.template, 'x://{a}/{+b.c}{/d*}{?e,f}{&g}');
  assert.ok(Object.isFrozen(t.variableNames));
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
  const uri = t.expand({ owner: '../admin?x=1#y', name: '%2F' });
  assert.equal(uri, 'x://..%2Fadmin%3Fx%3D1%23y/%252F');
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
  assert.equal(t.expand({ ['__proto__']: 'p', constructor: 'c' }), 'x://p/c');
  assert.equal(new UriTemplate('x://{toString}').expand({}), 'x://');
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
