// The skills part of the conformance fixture: two Agent Skills the MCP conformance suite's `sep-2640-skills-*`
// scenarios look at, served in both eras through `addSkill()` (mcp-core/skills). The first one listed has
// subdirectories (the directory checks read the first skill's folder) and a binary file; the second sits under a
// prefix. Registered by examples/everything.ts.

import type { Server } from '../core.ts';
import { fromBase64 } from '../jsonrpc.ts';
import { addSkill } from '../skills/skills.ts';

/** A 1×1 PNG: the binary file of the first skill. */
const LOGO = fromBase64(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
)!;

/** Serves the fixture skills on `server`. */
export function registerSkillFixtures(server: Server): void {
  addSkill(server, {
    skillMd: `---
name: pdf-processing
description: Extracts text and tables from PDF files, fills PDF forms, and merges documents. Use when working with PDFs.
license: MIT
metadata:
  author: mcp-core
  version: "1.0"
---

# PDF processing

Read [the forms guide](references/FORMS.md) before filling a form; run \`scripts/fill_form.py\` to fill one.
The logo in \`assets/logo.png\` goes on every cover page.
`,
    files: {
      'references/FORMS.md': '# Filling PDF forms\n\n1. List the fields.\n2. Fill them with `scripts/fill_form.py`.\n',
      'scripts/fill_form.py': 'import sys\n\nprint("filling", sys.argv[1])\n',
      'assets/logo.png': LOGO,
    },
  });
  addSkill(server, {
    prefix: 'acme/docs',
    skillMd: `---
name: release-notes
description: Writes release notes from a list of merged changes, grouped by kind. Use when preparing a release.
---

# Release notes

Group the changes as Added, Changed, Fixed; one line each, newest first.
`,
  });
}
