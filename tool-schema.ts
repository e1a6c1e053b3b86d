// Tool schemas: a tool's inputSchema or outputSchema is a plain JSON Schema or a validator implementing Standard
// Schema v1 with Standard JSON Schema v1 (zod 4, valibot, …; our own copy of those interfaces, no library imported),
// turned once at registration into the JSON Schema that tools/list shows plus a parser that words issues with paths,
// and the argument types inferred from it. Never validates JSON Schema itself (schema.ts does) or mutates a schema.

import { isPlainObject, isThenable } from './jsonrpc.ts';
import { checkSchema, compileSchema, formatPath, type JsonSchema, type SchemaOptions } from './schema.ts';

/** The Standard Typed interface (https://standardschema.dev, v1), the base of the two below. */
export interface StandardTypedV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardTypedV1Props<Input, Output>;
}

/** The `~standard` property of a Standard Typed value: spec version, vendor and (type-only) input/output types. */
export interface StandardTypedV1Props<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** The Standard Schema v1 interface: a validator any library can implement. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/** The `~standard` property of a Standard Schema: the typed props plus `validate`. */
export interface StandardSchemaV1Props<Input = unknown, Output = Input> extends StandardTypedV1Props<Input, Output> {
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
  ) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
}
/** What `validate` returns: the output value (transforms and defaults applied: what a handler receives), or issues. */
export type StandardSchemaV1Result<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaV1Issue> };
/** One validation issue: a message and where in the value it is (keys, or segments given as objects). */
export interface StandardSchemaV1Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The Standard JSON Schema v1 interface: something that can describe itself as JSON Schema. */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardJSONSchemaV1Props<Input, Output>;
}

/** The `~standard` property of a Standard JSON Schema: the typed props plus the `jsonSchema` converter. */
export interface StandardJSONSchemaV1Props<Input = unknown, Output = Input>
  extends StandardTypedV1Props<Input, Output> {
  /** The JSON Schema of the input or the output side, in the target dialect; may throw when the type has none. */
  readonly jsonSchema: { readonly input: JsonSchemaConverter; readonly output: JsonSchemaConverter };
}
/** Produces the JSON Schema of one side in the dialect asked. */
type JsonSchemaConverter = (options: {
  readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | ({} & string);
  readonly libraryOptions?: Record<string, unknown> | undefined;
}) => Record<string, unknown>;

/** What a tool schema may be besides plain JSON Schema: a Standard Schema that also exports its JSON Schema. */
export interface StandardSchemaWithJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1Props<Input, Output> & StandardJSONSchemaV1Props<Input, Output>;
}

/** A tool's `inputSchema` (an object one) or `outputSchema`: a JSON Schema, or a Standard Schema with Standard JSON Schema. */
export type ToolSchema = JsonSchema | StandardSchemaWithJsonSchema;

/** The types a Standard Typed value carries (for inference only). */
type TypesOf<S extends StandardTypedV1> = NonNullable<S['~standard']['types']>;

/** The handler's argument type for an input schema: the Standard Schema's output, or a plain record. */
export type ToolArgsOf<S> = [S] extends [StandardTypedV1] ? TypesOf<S>['output'] : Record<string, unknown>;

/** What a handler puts in `structuredContent` for an output schema: the Standard Schema's input, or any JSON value. */
export type ToolStructuredOf<S> = [S] extends [StandardTypedV1] ? TypesOf<S>['input'] : unknown;

/** The handler's argument type for a tool definition (from its `inputSchema`). */
export type ToolArgsFor<D> = D extends { inputSchema: infer S } ? ToolArgsOf<S> : Record<string, unknown>;

/** The `structuredContent` type for a tool definition (from its `outputSchema`). */
export type ToolStructuredFor<D> = D extends { outputSchema: infer S } ? ToolStructuredOf<S> : unknown;

/** A checked value (a Standard Schema's output) or its issues, each worded with its path ('arguments.city …'). */
export type Parsed = { value: unknown; problems?: undefined } | { problems: string[] };
/** Checks one value against a compiled tool schema; `root` names it in problem messages. */
export type Parser = (value: unknown, root: string) => Parsed | Promise<Parsed>;

/** A tool schema ready for use: the JSON Schema clients see in tools/list, and the parser to check values with. */
type CompiledToolSchema = { json: Record<string, unknown>; parse: Parser };
/** Which schema of a tool: its arguments' (inputSchema) or its result's (outputSchema). */
type Side = 'input' | 'output';

/**
 * Compiles a tool's schema at registration; `where` names it in errors ("tool 'weather': inputSchema"), `options`
 * holds the documents its $refs may name (the server's `schemas`). Throws a TypeError naming the mistake: an input
 * schema not for objects, an invalid JSON Schema, a Standard Schema without a JSON Schema export or whose export fails.
 */
export function compileToolSchema(
  schema: unknown,
  where: string,
  io: Side,
  options: SchemaOptions = {},
): CompiledToolSchema {
  // Anything carrying a `~standard` property counts (arktype's types are functions).
  if ((typeof schema === 'object' || typeof schema === 'function') && schema !== null && '~standard' in schema)
    return compileStandard(schema['~standard'], where, io, options);
  if (!isPlainObject(schema))
    throw new TypeError(`${where} must be a JSON Schema object or a Standard Schema, not ${describe(schema)}`);
  const validate = checkJson(schema, where, io, (json) => compileSchema(json, options));
  return {
    json: schema,
    parse: (value, root) => {
      const issues = validate(value);
      if (issues.length === 0) return { value };
      return { problems: issues.map((issue) => `${formatPath(root, issue.path)} ${issue.message}`) };
    },
  };
}

/**
 * Checks that an input schema describes objects (arguments are; an output schema may describe any JSON value: MCP
 * 2026-07-28 Server Features > Tools > Output Schema), then `check`s it (compileSchema, or checkSchema for a Standard's).
 */
function checkJson<T>(json: Record<string, unknown>, where: string, io: Side, check: (schema: JsonSchema) => T): T {
  if (io === 'input' && json.type !== 'object')
    throw new TypeError(
      `${where} must describe an object ({"type": "object", ...}), not type ${JSON.stringify(json.type)}`,
    );
  try {
    return check(json);
  } catch (error) {
    throw new TypeError(`${where}: ${(error as Error).message}`, { cause: error });
  }
}

/** The listed JSON Schema and parser of a Standard Schema, which validates with its own library. */
function compileStandard(std: unknown, where: string, io: Side, options: SchemaOptions): CompiledToolSchema {
  if (!isPlainObject(std) || std.version !== 1 || typeof std.validate !== 'function')
    throw new TypeError(
      `${where} has a '~standard' property but is not a Standard Schema v1 (version 1 with validate())`,
    );
  const vendor = typeof std.vendor === 'string' ? std.vendor : 'unknown vendor';
  const converter = std.jsonSchema;
  if (!isPlainObject(converter) || typeof converter[io] !== 'function') {
    throw new TypeError(
      `${where} is a Standard Schema (${vendor}) that does not export JSON Schema ` +
        `('~standard'.jsonSchema.${io}, the Standard JSON Schema spec), which tools/list needs: ` +
        'use a library version that implements Standard JSON Schema, or pass a plain JSON Schema',
    );
  }
  let json: unknown;
  try {
    json = (converter[io] as JsonSchemaConverter)({ target: 'draft-2020-12' });
  } catch (error) {
    throw new TypeError(`${where} (${vendor}) has no JSON Schema form: ${(error as Error)?.message ?? error}`, {
      cause: error,
    });
  }
  if (!isPlainObject(json)) throw new TypeError(`${where} (${vendor}) exported ${describe(json)} as its JSON Schema`);
  checkJson(json, `${where} (${vendor})`, io, (exported) => checkSchema(exported, options));
  const props = std as unknown as StandardSchemaV1Props;
  return {
    json,
    parse: (value, root) => {
      const result = props.validate(value);
      return isThenable(result) ? Promise.resolve(result).then((done) => settle(done, root)) : settle(result, root);
    },
  };
}

/** A Standard Schema's result as Parsed, its issues worded with their paths. */
function settle(result: StandardSchemaV1Result<unknown>, root: string): Parsed {
  if (!isPlainObject(result))
    throw new TypeError(`validate() of a Standard Schema returned ${describe(result)}, not a result`);
  if (!result.issues) return { value: result.value };
  if (result.issues.length === 0) return { problems: [`${root}: is invalid`] };
  return { problems: result.issues.map((issue) => `${formatPath(root, pathOf(issue))}: ${issue.message}`) };
}

/** An issue's path as keys (symbols by their description). */
function pathOf(issue: StandardSchemaV1Issue): (string | number)[] {
  return (issue.path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'symbol' ? key.toString() : key;
  });
}

/** The kind of a value, for an error message. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
