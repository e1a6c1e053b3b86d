// The skills add-on (io.modelcontextprotocol/skills, skills/skills.ts, docs/skills.md) at the wire, on stdio and HTTP:
// the declaration in both eras (server/discover, initialize), skills/list with paging and cache fields, skills/get
// (an unknown skill -32602), every file read back through resources/read with the digest and size its manifest
// gives, resources/directory/read of every folder (a file or an unknown folder -32602), the files listed for 2025
// clients, change announcements once per skill, removal, and the bundles registration refuses.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { createServer, type Server } from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { addSkill, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILLS_EXTENSION, type SkillBundle } from '../skills/skills.ts';
import { type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { type Id, modern, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time
const INFO = { name: 'skills-test', version: '1.0.0' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

const PDF: SkillBundle = {
  skillMd: `---
name: pdf-processing
description: Works with PDF files.
license: Apache-2.0
metadata:
  version: "2.1"
  owner: docs team
allowed-tools: Bash(python:*) Read
---

# PDF

See references/FORMS.md.
`,
  files: {
    'references/FORMS.md': '# Forms\n',
    'references/deep/NOTES.txt': 'notes: ünïcode\n',
    'assets/logo.png': new Uint8Array(PNG),
  },
};

const NOTES: SkillBundle = {
  prefix: 'acme/docs',
  skillMd: '---\nname: release-notes\ndescription: Writes release notes.\n---\nGroup the changes.\n',
};

function server(): Server {
  return createServer(INFO, { logger: new MemoryLogger(), pageSize: 1 });
}

/** One transport of one era: a request in, its response frame out. */
type Call = (method: string, params: object, id: Id) => Promise<Frame>;

/** A 2026-07-28 client over stdio (no handshake), declaring nothing. */
function stdioModern(t: TestContext, s: Server): Call {
  const client = new WireClient(s);
  t.after(() => client.end());
  return (method, params, id) => {
    client.send(modern(method, params, id));
    return client.response(id);
  };
}

/** A 2026-07-28 client over HTTP (sessionless POSTs), declaring nothing. */
async function httpModern(t: TestContext, s: Server): Promise<Call> {
  const http: HttpServer = await serveHttp(s, { port: 0, host: '127.0.0.1' });
  t.after(() => http.close());
  return async (method, params, id) => {
    const frame = modern(method, params, id);
    const response = await raw(http.url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
    assert.equal(response.status, 200, response.text);
    return response.json;
  };
}

const TRANSPORTS = [
  ['stdio', (t: TestContext, s: Server) => Promise.resolve(stdioModern(t, s))],
  ['http', httpModern],
] as const;

/** sha256:<hex> of bytes, by node:crypto (the reference the served digests are checked against). */
function digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The bytes a resources/read content carries. */
function bytesOf(content: { text?: string; blob?: string }): Uint8Array {
  return content.text !== undefined ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob!, 'base64');
}

for (const [kind, open] of TRANSPORTS) {
  test(`${kind}: server/discover declares the extension with directoryRead, beside resources`, T, async (t) => {
    const s = server();
    addSkill(s, PDF);
    const call = await open(t, s);
    const { result } = await call('server/discover', {}, 'd');
    assert.deepEqual(result.capabilities.extensions[SKILLS_EXTENSION], { directoryRead: true });
    assert.equal(typeof result.capabilities.resources, 'object');
  });

  test(`${kind}: skills/list pages whole entries, with cache fields; skills/get echoes the uri`, T, async (t) => {
    const s = server();
    addSkill(s, PDF);
    addSkill(s, NOTES);
    const call = await open(t, s);
    const first = (await call('skills/list', {}, 'l1')).result;
    assert.equal(first.skills.length, 1);
    assert.equal(first.skills[0].uri, 'skill://pdf-processing/SKILL.md');
    assert.deepEqual(first.skills[0].frontmatter, {
      name: 'pdf-processing',
      description: 'Works with PDF files.',
      license: 'Apache-2.0',
      metadata: { version: '2.1', owner: 'docs team' },
      'allowed-tools': 'Bash(python:*) Read',
    });
    assert.equal(typeof first.ttlMs, 'number');
    assert.equal(typeof first.cacheScope, 'string');
    assert.equal(first.resultType, 'complete');
    const second = (await call('skills/list', { cursor: first.nextCursor }, 'l2')).result;
    assert.deepEqual(
      second.skills.map((skill: { uri: string }) => skill.uri),
      ['skill://acme/docs/release-notes/SKILL.md'],
    );
    assert.equal(second.nextCursor, undefined);
    const got = (await call('skills/get', { uri: 'skill://acme/docs/release-notes/SKILL.md' }, 'g')).result;
    assert.deepEqual(got.skill, second.skills[0]);
    assert.equal(got.nextCursor, undefined);
    assert.equal(typeof got.ttlMs, 'number');
    const bad = await call('skills/list', { cursor: 'nope' }, 'l3');
    assert.equal(bad.error.code, -32602);
  });

  test(`${kind}: every file reads back with the digest and size its manifest gives`, T, async (t) => {
    const s = server();
    addSkill(s, PDF);
    const call = await open(t, s);
    const { skill } = (await call('skills/get', { uri: 'skill://pdf-processing/SKILL.md' }, 'g')).result;
    assert.deepEqual(
      skill.resources.map((item: { uri: string }) => item.uri),
      [
        'skill://pdf-processing/SKILL.md',
        'skill://pdf-processing/references/FORMS.md',
        'skill://pdf-processing/references/deep/NOTES.txt',
        'skill://pdf-processing/assets/logo.png',
      ],
    );
    for (const [index, item] of skill.resources.entries()) {
      const read = (await call('resources/read', { uri: item.uri }, `r${index}`)).result;
      const bytes = bytesOf(read.contents[0]);
      assert.equal(item.digest, digest(bytes), item.uri);
      assert.equal(item.size, bytes.length, item.uri);
    }
    const logo = (await call('resources/read', { uri: 'skill://pdf-processing/assets/logo.png' }, 'png')).result;
    assert.deepEqual(logo.contents[0], {
      uri: 'skill://pdf-processing/assets/logo.png',
      mimeType: 'image/png',
      blob: PNG.toString('base64'),
    });
    const md = (await call('resources/read', { uri: 'skill://pdf-processing/SKILL.md' }, 'md')).result;
    assert.deepEqual(md.contents[0], { uri: skill.uri, mimeType: 'text/markdown', text: PDF.skillMd });
  });

  test(
    `${kind}: resources/directory/read lists each folder's files and folders; anything else is -32602`,
    T,
    async (t) => {
      const s = server();
      addSkill(s, PDF);
      addSkill(s, NOTES);
      const call = await open(t, s);
      /** Every child of a folder, over all its pages. */
      const children = async (uri: string): Promise<Record<string, unknown>[]> => {
        const all: Record<string, unknown>[] = [];
        let cursor: string | undefined;
        do {
          const { result } = await call(
            'resources/directory/read',
            cursor === undefined ? { uri } : { uri, cursor },
            uri,
          );
          assert.equal(result.resultType, 'complete');
          all.push(...result.resources);
          cursor = result.nextCursor;
        } while (cursor !== undefined);
        return all;
      };
      const root = await children('skill://pdf-processing');
      assert.deepEqual(root, [
        {
          uri: 'skill://pdf-processing/SKILL.md',
          name: 'pdf-processing',
          description: 'Works with PDF files.',
          mimeType: 'text/markdown',
          size: Buffer.byteLength(PDF.skillMd),
        },
        { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
        { uri: 'skill://pdf-processing/assets', name: 'assets', mimeType: 'inode/directory' },
      ]);
      assert.deepEqual(
        (await children('skill://pdf-processing/references')).map((child) => [child.uri, child.mimeType]),
        [
          ['skill://pdf-processing/references/FORMS.md', 'text/markdown'],
          ['skill://pdf-processing/references/deep', 'inode/directory'],
        ],
      );
      assert.deepEqual(
        (await children('skill://acme')).map((child) => child.uri),
        ['skill://acme/docs'],
        'a prefix is a folder too',
      );
      for (const uri of ['skill://pdf-processing/SKILL.md', 'skill://nowhere', 'skill://pdf-processing/references/']) {
        const refused = await call('resources/directory/read', { uri }, `x-${uri}`);
        assert.equal(refused.error.code, -32602, uri);
      }
      assert.equal((await call('resources/directory/read', {}, 'no-uri')).error.code, -32602);
    },
  );

  test(`${kind}: an unknown skill is -32602; a uri that is not a string is -32602 naming it`, T, async (t) => {
    const s = server();
    addSkill(s, PDF);
    const call = await open(t, s);
    const unknown = await call('skills/get', { uri: 'skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md' }, 'u');
    assert.equal(unknown.error.code, -32602);
    const notString = await call('skills/get', { uri: 5 }, 'n');
    assert.equal(notString.error.code, -32602);
    assert.match(notString.error.message, /params\.uri/);
  });
}

test('without a skill the extension is not declared and its methods are unknown (-32601)', T, async (t) => {
  const call = stdioModern(t, server());
  const { result } = await call('server/discover', {}, 'd');
  assert.equal(result.capabilities.extensions, undefined);
  assert.equal((await call('skills/list', {}, 'l')).error.code, -32601);
});

test(
  '2025: initialize declares the extension, skill files are listed resources, and the methods answer',
  T,
  async (t) => {
    const s = server();
    addSkill(s, PDF);
    const client = new WireClient(s);
    t.after(() => client.end());
    const init = await client.initialize('2025-11-25');
    assert.deepEqual(init.capabilities.extensions, { [SKILLS_EXTENSION]: { directoryRead: true } });
    const listed: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request('resources/list', cursor === undefined ? {} : { cursor });
      listed.push(...page.result.resources);
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(listed[0], {
      uri: 'skill://pdf-processing/SKILL.md',
      name: 'pdf-processing',
      description: 'Works with PDF files.',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(PDF.skillMd),
    });
    assert.equal(listed.length, 4);
    const list = await client.request('skills/list', {});
    assert.equal(list.result.skills.length, 1);
    assert.equal(list.result.ttlMs, undefined, 'no cache fields before 2026-07-28');
    const dir = await client.request('resources/directory/read', { uri: 'skill://pdf-processing/assets' });
    assert.equal(dir.result.resources[0].uri, 'skill://pdf-processing/assets/logo.png');
  },
);

test('a skill added or removed is one resources list_changed, and its files stop being served', T, async (t) => {
  const s = server();
  addSkill(s, NOTES); // resources are served from the start: the session is told of list changes
  const client = new WireClient(s);
  t.after(() => client.end());
  await client.initialize('2025-11-25');
  const added = addSkill(s, PDF);
  assert.equal(added.uri, 'skill://pdf-processing/SKILL.md');
  await client.notification('notifications/resources/list_changed');
  const before = await client.request('skills/list', {});
  assert.equal(before.result.skills.length, 1); // one page: NOTES is on the next
  assert.equal(typeof before.result.nextCursor, 'string');
  assert.deepEqual(
    client.unread().filter((frame) => frame.method === 'notifications/resources/list_changed'),
    [],
    'once for the whole skill',
  );
  added.remove();
  added.remove(); // a no-op
  await client.notification('notifications/resources/list_changed');
  assert.deepEqual(
    (await client.request('skills/list', {})).result.skills.map((skill: { uri: string }) => skill.uri),
    ['skill://acme/docs/release-notes/SKILL.md'],
  );
  const gone = await client.request('resources/read', { uri: 'skill://pdf-processing/SKILL.md' });
  assert.equal(gone.error.code, -32002); // 2025's resource-not-found
  addSkill(s, PDF); // the name is free again
});

test('registration refuses hostile or broken bundles, naming the mistake, and serves nothing of them', async (t) => {
  const s = server();
  const frontmatter = (fields: string) => `---\n${fields}\n---\nbody\n`;
  const refusals: [SkillBundle, RegExp][] = [
    [{ skillMd: 'no frontmatter' }, /frontmatter/],
    [{ skillMd: frontmatter('description: d') }, /name must be/],
    [{ skillMd: frontmatter('name: Bad_Name\ndescription: d') }, /name must be/],
    [{ skillMd: frontmatter('name: a--b\ndescription: d') }, /name must be/],
    [{ skillMd: frontmatter('name: ok') }, /needs a description/],
    [{ skillMd: frontmatter(`name: ok\ndescription: ${'x'.repeat(1025)}`) }, /at most 1024/],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), name: 'other' }, /folder's name, 'other'/],
    [
      { skillMd: frontmatter('name: ok\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: y') },
      /reserved prefix/,
    ],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), files: { '../escape.md': 'x' } }, /segment/],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), files: { '/abs.md': 'x' } }, /segment/],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), files: { 'a/./b.md': 'x' } }, /segment/],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), files: { 'a\\b.md': 'x' } }, /segment/],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), files: { 'with space.md': 'x' } }, /segment/],
    [
      { skillMd: frontmatter('name: ok\ndescription: d'), files: { SKILL: 'x', 'SKILL/x': 'y' } },
      /both a file and a folder/,
    ],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), files: { 'SKILL.md': 'x' } }, /SKILL.md is skillMd/],
    [
      { skillMd: frontmatter('name: ok\ndescription: d'), files: { 'a.md': 5 as unknown as string } },
      /string or a Uint8Array/,
    ],
    [{ skillMd: frontmatter('name: ok\ndescription: d'), prefix: '../up' }, /prefix/],
    [
      { skillMd: frontmatter('name: ok\ndescription: d'), digests: { 'SKILL.md': `sha256:${'0'.repeat(64)}` } },
      /has digest sha256:[0-9a-f]{64}, not/,
    ],
    [
      { skillMd: frontmatter('name: ok\ndescription: d'), digests: { 'missing.md': 'sha256:x' } },
      /which it does not have/,
    ],
    [
      {
        skillMd: frontmatter('name: ok\ndescription: d'),
        files: Object.fromEntries(Array.from({ length: MAX_SKILL_FILES }, (_, i) => [`f${i}.txt`, 'x'])),
      },
      /at most 512/,
    ],
    [
      { skillMd: frontmatter('name: ok\ndescription: d'), files: { 'big.bin': new Uint8Array(MAX_SKILL_BYTES) } },
      /more than 16777216 bytes/,
    ],
    [5 as unknown as SkillBundle, /skillMd/],
  ];
  for (const [bundle, message] of refusals)
    assert.throws(() => addSkill(s, bundle), { name: 'TypeError', message }, String(message));
  const call = stdioModern(t, s);
  assert.equal((await call('resources/list', {}, 'nothing')).error.code, -32601, 'nothing of them: not even resources');
  assert.equal((await call('server/discover', {}, 'undeclared')).result.capabilities.extensions, undefined);
  addSkill(s, PDF);
  assert.throws(() => addSkill(s, PDF), /already served/);
  assert.throws(
    () => addSkill(s, { ...NOTES, skillMd: NOTES.skillMd.replace('release-notes', 'pdf-processing') }),
    /already served/,
  );
  const nested = { prefix: 'pdf-processing', skillMd: frontmatter('name: inner\ndescription: d') };
  assert.throws(() => addSkill(s, nested), /hold one another/);
  // A file whose URI another resource holds: nothing of the skill is served.
  s.resource('skill://taken/SKILL.md', { name: 'x' }, () => ({ contents: [] }));
  assert.throws(() => addSkill(s, { skillMd: frontmatter('name: taken\ndescription: d') }));
  const digests = { 'SKILL.md': digest(Buffer.from(NOTES.skillMd)) };
  addSkill(s, { ...NOTES, digests }); // matching digests pass
});

test('the extension is declared with the others in 2025 initialize (extensions maps merge)', T, async (t) => {
  const s = server();
  s.use({
    id: 'com.example/other',
    settings: {},
    legacyCapabilities: () => ({ extensions: { 'com.example/other': {} } }),
  });
  addSkill(s, NOTES);
  const client = new WireClient(s);
  t.after(() => client.end());
  const init = await client.initialize('2025-11-25');
  assert.deepEqual(Object.keys(init.capabilities.extensions).sort(), ['com.example/other', SKILLS_EXTENSION]);
});

test('more refusals: files in a Map, a lone surrogate, a prefix that is not a string; inherited names are files too', () => {
  const s = server();
  const skillMd = '---\nname: ok\ndescription: d\n---\n';
  assert.throws(() => addSkill(s, { skillMd, files: new Map() as never }), /files must be a plain object/);
  assert.throws(() => addSkill(s, { skillMd, files: { 'a.md': 'x\ud800y' } }), /lone surrogate/);
  assert.throws(() => addSkill(s, { skillMd: `${skillMd}\udc00` }), /lone surrogate/);
  assert.throws(() => addSkill(s, { skillMd, prefix: 5 as never }), /prefix must be a string/);
  assert.throws(() => addSkill(s, { skillMd, digests: new Map() as never }), /digests must be a plain object/);
  // A digest list that does not name `constructor` checks nothing for it (no inherited property is taken for one).
  addSkill(s, { skillMd, files: { constructor: 'c', toString: 't' }, digests: {} });
});

test('a failing registration rolls back every file it registered; the last removal undeclares the extension', async (t) => {
  const s = server();
  s.resource('skill://roll/references/B.md', { name: 'taken' }, () => ({ contents: [] }));
  const bundle: SkillBundle = {
    skillMd: '---\nname: roll\ndescription: d\n---\n',
    files: { 'references/A.md': 'a', 'references/B.md': 'b' },
  };
  assert.throws(() => addSkill(s, bundle), {
    name: 'TypeError',
    message: /skill 'roll': .*skill:\/\/roll\/references\/B\.md/,
  });
  const call = stdioModern(t, s);
  assert.deepEqual(
    (await call('resources/list', {}, 'l')).result.resources.map((resource: { uri: string }) => resource.uri),
    ['skill://roll/references/B.md'],
  );
  assert.equal((await call('server/discover', {}, 'd1')).result.capabilities.extensions, undefined);
  const pdf = addSkill(s, PDF);
  assert.ok((await call('server/discover', {}, 'd2')).result.capabilities.extensions[SKILLS_EXTENSION]);
  assert.equal((await call('resources/directory/read', { uri: 'skill://pdf-processing' }, 'r1')).error, undefined);
  pdf.remove();
  assert.equal((await call('resources/directory/read', { uri: 'skill://pdf-processing' }, 'r2')).error.code, -32601);
  assert.equal((await call('server/discover', {}, 'd3')).result.capabilities.extensions, undefined);
  addSkill(s, NOTES);
  const notes = await call('resources/directory/read', { uri: 'skill://pdf-processing' }, 'r3');
  assert.equal(notes.error.code, -32602, "the removed skill's folder is gone from the tree");
});

test('2026-07-28: a skill added or removed reaches a listen stream as one resources list_changed', T, async (t) => {
  const s = server();
  s.resource('test://plain', { name: 'plain' }, () => ({ contents: [] })); // resources are served: the listen asks
  const client = new WireClient(s);
  t.after(() => client.end());
  client.send(modern('subscriptions/listen', { notifications: { resourcesListChanged: true } }, 'listen'));
  await client.notification('notifications/subscriptions/acknowledged');
  const changed = {
    jsonrpc: '2.0',
    method: 'notifications/resources/list_changed',
    params: { _meta: { [SUBSCRIPTION_ID]: 'listen' } },
  };
  const added = addSkill(s, PDF);
  assert.deepEqual(await client.notification('notifications/resources/list_changed'), changed);
  added.remove();
  assert.deepEqual(await client.notification('notifications/resources/list_changed'), changed);
  client.send(modern('ping', {}, 'fence'));
  await client.response('fence');
  assert.deepEqual(
    client.unread().filter((frame) => frame.method === 'notifications/resources/list_changed'),
    [],
    'one each',
  );
});
