import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SaxesParser } from 'saxes';

/**
 * QuickBooks Online's XML Schema (Intuit's own contract, ./xsd/) → JSON Schemas (draft 2020-12) that validate QBO's
 * **JSON** responses, so a fake QuickBooks server can be checked against the vendor's contract rather than our
 * reading of it.
 *
 * Intuit publishes no JSON Schema: its JSON is the same object model as the XML, serialised by the SDK's
 * JAXB/Jackson mapping. The rules below are that mapping (checked against Intuit's documented responses); where the
 * JSON differs from the XML it says "JSON ≠ XML".
 *
 *  1. An element is a property of the same name (PascalCase as in the XSD: `Id`, `MetaData`, `TotalAmt`).
 *  2. An element whose maxOccurs (times that of any repeating sequence/choice around it) is above 1 is an array,
 *     even with one item (`Line: [...]`); any other element is a single value, never an array. JSON ≠ XML: XML
 *     repeats the tag, JSON has one key. So `QueryResponse` is an object in IntuitResponse (maxOccurs 1) but an
 *     array inside CDCResponse (maxOccurs unbounded), and `CDCResponse` itself is an array.
 *  3. Attributes are properties too, beside the elements (`domain`, `sparse`, `status`, `time`, `startPosition`).
 *     JSON ≠ XML: nothing marks them as attributes.
 *  4. Simple content (text with attributes, e.g. `ReferenceType`) is an object whose text is the property `value`
 *     (typed by the base simple type) beside the attributes: `CustomerRef: { value: "1", name: "Amy's" }`.
 *     JSON ≠ XML: XML's text node gets a name.
 *  5. Extension (complexContent) is flattened: a type has its base chain's properties plus its own
 *     (Invoice → SalesTransaction → Transaction → IntuitEntity), with `additionalProperties: false` so an unknown
 *     or misspelt field fails. Where the XSD allows foreign content (xs:any, xs:anyAttribute: the `...Ex`
 *     extension elements of type IntuitAnyType), anything is allowed. JSON ≠ XML: the SDK serialises xs:any as the
 *     JAXB element list `{ "any": [ { "name": "{ns}NameValue", "value": {...}, ... } ] }` (seen in Payment.LineEx).
 *  6. sequence, choice and all only collect properties: no element is `required` (QBO's JSON leaves out many
 *     minOccurs=1 elements, and a choice is not enforced), but every property's type is. Only attributes with
 *     use="required" (e.g. Error.code) are required.
 *  7. `<xs:element ref="X">` is the global element X; if X heads a substitution group (IntuitObject) it stands for
 *     every non-abstract member, each a property named by its element (`QueryResponse.Invoice: [...]`,
 *     `IntuitResponse.Customer: {...}`) with the multiplicity of the ref. An element typed by an abstract complex
 *     type is any of that type's concrete descendants (JSON has no xsi:type to say which).
 *  8. Simple types: string-like → string; boolean → boolean (JSON true/false, not "true"); int/integer/long/short →
 *     integer; decimal/double/float → number (JSON numbers, not strings); date → string format date;
 *     dateTime → string format date-time (QBO sends offsets, `2015-07-24T10:33:39-07:00`); time → string.
 *     A restriction is its base's schema plus facets (enumeration → enum, lengths, pattern, bounds); xs:list →
 *     string; xs:union → anyOf. `Id` and `SyncToken` are strings (the `id` simple type and xs:string), as QBO's
 *     JSON sends them ("Id": "130", "SyncToken": "0").
 *  9. Reports (`/reports/...`) are the Report type at the top level, without the IntuitResponse envelope.
 *
 * Outside the XSD (not validated by it): the API gateway's 401/403 bodies, which are a different, camelCase
 * serialisation (`{"fault":{"error":[{"message":...}]},"time":1633520295688,...}`).
 */

const XS = 'http://www.w3.org/2001/XMLSchema';

/** Where the vendored XSDs live, beside this module (see xsd/README.md). */
export const QBO_XSD_DIR = fileURLToPath(new URL('./xsd/', import.meta.url));

/** The `$id` the converted definitions are registered under in Ajv. */
export const QBO_SCHEMA_ID = 'urn:ledgerport:contracts:quickbooks:v3';

export type JsonSchema = { [keyword: string]: unknown };

/** A QName resolved against the namespaces in scope, in Clark notation: `{namespace}local`. */
type QName = string;

/** One XSD element, as much as the converter needs: annotations are dropped while parsing. */
interface XsNode {
  /** Local name in the XSD namespace: `element`, `complexType`, `sequence`, ... */
  kind: string;
  /** Attributes as written. */
  attrs: Record<string, string>;
  /** Namespace bindings in scope (prefix → URI; '' is the default namespace), for QName-valued attributes. */
  scope: Record<string, string>;
  children: XsNode[];
}

function qname(node: XsNode, attr: string): QName | undefined {
  const value = node.attrs[attr];
  return value === undefined ? undefined : resolveQName(node, value);
}

/** A QName-valued attribute the construct cannot do without (a group's or attributeGroup's `ref`). */
function mustQName(node: XsNode, attr: string): QName {
  const value = qname(node, attr);
  if (value === undefined) throw new Error(`xs:${node.kind} without ${attr}`);
  return value;
}

function resolveQName(node: XsNode, value: string): QName {
  const colon = value.indexOf(':');
  const prefix = colon < 0 ? '' : value.slice(0, colon);
  const uri = node.scope[prefix];
  if (uri === undefined && prefix !== '') throw new Error(`unbound prefix in QName ${value}`);
  return `{${uri ?? ''}}${value.slice(colon + 1)}`;
}

const localOf = (q: QName): string => q.slice(q.indexOf('}') + 1);
const nsOf = (q: QName): string => q.slice(1, q.indexOf('}'));

/** Parses one XSD file into XsNodes, keeping only elements in the XSD namespace outside xs:annotation. */
function parseXsd(path: string): XsNode {
  const parser = new SaxesParser({ xmlns: true, fileName: path });
  const stack: XsNode[] = [];
  let root: XsNode | undefined;
  // Depth inside content we skip (annotations and their xhtml; anything not in the XSD namespace).
  let skipping = 0;
  parser.on('opentag', (tag) => {
    if (skipping > 0 || tag.uri !== XS || tag.local === 'annotation') {
      skipping++;
      return;
    }
    const parent = stack[stack.length - 1];
    const attrs: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) if (attribute.uri === '') attrs[attribute.local] = attribute.value;
    const node: XsNode = {
      kind: tag.local,
      attrs,
      scope: { ...(parent?.scope ?? {}), ...tag.ns },
      children: [],
    };
    if (parent) parent.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on('closetag', () => {
    if (skipping > 0) skipping--;
    else stack.pop();
  });
  // IntuitBaseTypes.xsd starts with a byte-order mark, which the parser would take for text before the prolog.
  parser.write(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')).close();
  if (!root || root.kind !== 'schema') throw new Error(`${path}: not an XML Schema`);
  return root;
}

/** The global components of an XSD and everything it includes (one target namespace, as QBO's are). */
class SchemaSet {
  readonly complexTypes = new Map<QName, XsNode>();
  readonly simpleTypes = new Map<QName, XsNode>();
  readonly elements = new Map<QName, XsNode>();
  readonly attributes = new Map<QName, XsNode>();
  readonly groups = new Map<QName, XsNode>();
  readonly attributeGroups = new Map<QName, XsNode>();
  private readonly loaded = new Set<string>();

  constructor(private readonly dir: string) {}

  load(file: string, includedFrom?: { file: string; targetNamespace: string }): void {
    // IntuitBaseTypes.xsd is included twice (by IntuitNamesTypes.xsd and Report.xsd): read each file once.
    if (this.loaded.has(file)) return;
    this.loaded.add(file);
    const schema = parseXsd(join(this.dir, file));
    const targetNamespace = schema.attrs.targetNamespace ?? '';
    // An include shares its includer's namespace (QBO's all do); a no-namespace ("chameleon") include is not handled.
    if (includedFrom && includedFrom.targetNamespace !== targetNamespace) {
      throw new Error(`${file}: namespace ${targetNamespace} differs from its includer ${includedFrom.file}'s`);
    }
    for (const node of schema.children) {
      const key = `{${targetNamespace}}${node.attrs.name}`;
      switch (node.kind) {
        case 'include':
          this.load(node.attrs.schemaLocation, { file, targetNamespace });
          break;
        case 'import':
        case 'redefine':
        case 'override':
          throw new Error(`${file}: xs:${node.kind} is not supported (QBO's schemas do not use it)`);
        case 'complexType':
          this.add(this.complexTypes, key, node);
          break;
        case 'simpleType':
          this.add(this.simpleTypes, key, node);
          break;
        case 'element':
          this.add(this.elements, key, node);
          break;
        case 'attribute':
          this.add(this.attributes, key, node);
          break;
        case 'group':
          this.add(this.groups, key, node);
          break;
        case 'attributeGroup':
          this.add(this.attributeGroups, key, node);
          break;
        default:
          // notation: nothing JSON has.
          break;
      }
    }
  }

  private add(into: Map<QName, XsNode>, key: QName, node: XsNode): void {
    if (into.has(key)) throw new Error(`duplicate global xs:${node.kind} ${key}`);
    into.set(key, node);
  }
}

/** Maps XSD built-in simple types to JSON: QBO's JSON uses JSON numbers and booleans for them, not strings. */
function builtin(local: string): JsonSchema {
  switch (local) {
    case 'boolean':
      return { type: 'boolean' };
    case 'decimal':
    case 'double':
    case 'float':
      return { type: 'number' };
    case 'integer':
    case 'int':
    case 'long':
    case 'short':
    case 'byte':
      return { type: 'integer' };
    case 'nonNegativeInteger':
    case 'unsignedLong':
    case 'unsignedInt':
    case 'unsignedShort':
    case 'unsignedByte':
      return { type: 'integer', minimum: 0 };
    case 'positiveInteger':
      return { type: 'integer', minimum: 1 };
    case 'negativeInteger':
      return { type: 'integer', maximum: -1 };
    case 'nonPositiveInteger':
      return { type: 'integer', maximum: 0 };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'dateTime':
      return { type: 'string', format: 'date-time' };
    case 'anyType':
    case 'anySimpleType':
      return {};
    default:
      // string, normalizedString, token, anyURI, time, duration, gYear, base64Binary, QName, ...: JSON strings.
      // (anyURI gets no `format: uri`: XSD accepts relative references such as "www.example.com".)
      return { type: 'string' };
  }
}

/** The JSON kind a simple type's enumeration values take. */
type Primitive = 'string' | 'number' | 'integer' | 'boolean';

/** What a complex type's content model and attributes become: one JSON object's properties. */
interface ObjectShape {
  properties: Map<string, JsonSchema>;
  required: Set<string>;
  /** xs:any or xs:anyAttribute: properties the XSD does not name are allowed. */
  open: boolean;
}

const cloneShape = (shape: ObjectShape): ObjectShape => ({
  properties: new Map(shape.properties),
  required: new Set(shape.required),
  open: shape.open,
});

const defRef = (name: string): JsonSchema => ({ $ref: `#/$defs/${encodeURIComponent(name)}` });
const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const occurs = (value: string | undefined, otherwise: number): number =>
  value === undefined ? otherwise : value === 'unbounded' ? Infinity : Number(value);

class Converter {
  private readonly shapes = new Map<QName, ObjectShape>();
  /** Substitution group head → its direct members. */
  private readonly members = new Map<QName, QName[]>();
  /** Complex type → the types deriving from it directly. */
  private readonly derived = new Map<QName, QName[]>();

  constructor(private readonly set: SchemaSet) {
    for (const [name, element] of set.elements) {
      const head = qname(element, 'substitutionGroup');
      if (head) this.members.set(head, [...(this.members.get(head) ?? []), name]);
    }
    for (const [name, type] of set.complexTypes) {
      const base = this.derivation(type)?.base;
      if (base) this.derived.set(base, [...(this.derived.get(base) ?? []), name]);
    }
  }

  convert(): Record<string, JsonSchema> {
    const defs: Record<string, JsonSchema> = {};
    for (const [name, node] of this.set.simpleTypes) defs[localOf(name)] = this.simpleType(node);
    for (const [name, node] of this.set.complexTypes) defs[localOf(name)] = this.complexType(node, name);
    for (const [name, node] of this.set.elements) defs[`element:${localOf(name)}`] = this.elementValue(node);
    return defs;
  }

  /** A reference to a named type: built-ins inline, the schema's own types by $ref. */
  private typeRef(type: QName): JsonSchema {
    if (nsOf(type) === XS) return builtin(localOf(type));
    if (!this.set.complexTypes.has(type) && !this.set.simpleTypes.has(type)) throw new Error(`unknown type ${type}`);
    return defRef(localOf(type));
  }

  /** A named type used by an element: an abstract complex type stands for its concrete descendants (rule 7). */
  private typeUse(type: QName): JsonSchema {
    const node = this.set.complexTypes.get(type);
    if (node?.attrs.abstract !== 'true') return this.typeRef(type);
    const concrete: QName[] = [];
    const visit = (t: QName): void => {
      for (const sub of this.derived.get(t) ?? []) {
        if (this.set.complexTypes.get(sub)?.attrs.abstract !== 'true') concrete.push(sub);
        visit(sub);
      }
    };
    visit(type);
    return concrete.length === 0 ? this.typeRef(type) : { anyOf: concrete.map((t) => this.typeRef(t)) };
  }

  /** The schema of an element's value: its type, an anonymous type, its substitution head's type, or anything. */
  private elementValue(element: XsNode): JsonSchema {
    const type = qname(element, 'type');
    if (type) return this.typeUse(type);
    const inline = element.children.find((c) => c.kind === 'complexType' || c.kind === 'simpleType');
    if (inline) return inline.kind === 'complexType' ? this.complexType(inline) : this.simpleType(inline);
    const head = qname(element, 'substitutionGroup');
    if (head) return this.elementValue(this.global(this.set.elements, head, 'element'));
    // No type at all is xs:anyType (e.g. PriceLevel.Name).
    return {};
  }

  private global(map: Map<QName, XsNode>, name: QName, what: string): XsNode {
    const node = map.get(name);
    if (!node) throw new Error(`unknown ${what} ${name}`);
    return node;
  }

  // ---- simple types -------------------------------------------------------------------------------------------

  private simpleType(node: XsNode): JsonSchema {
    const [definition] = node.children;
    switch (definition?.kind) {
      case 'restriction':
        return this.restriction(definition);
      case 'list':
        // Whitespace-separated in XML; QBO's JSON has no list-typed field, so the text is taken as it is.
        return { type: 'string' };
      case 'union': {
        const members = (definition.attrs.memberTypes ?? '')
          .split(/\s+/)
          .filter(Boolean)
          .map((m) => this.typeRef(resolveQName(definition, m)));
        for (const inline of definition.children) if (inline.kind === 'simpleType') members.push(this.simpleType(inline));
        return { anyOf: members };
      }
      default:
        throw new Error(`simpleType without restriction, list or union`);
    }
  }

  /** A simple restriction: the base's schema with the facets added (a $ref's siblings apply too in 2020-12). */
  private restriction(node: XsNode, base: JsonSchema = this.restrictionBase(node)): JsonSchema {
    const primitive = this.primitive(node);
    const facets: JsonSchema = {};
    const enumeration: unknown[] = [];
    const patterns: string[] = [];
    for (const facet of node.children) {
      const value = facet.attrs.value;
      switch (facet.kind) {
        case 'enumeration':
          enumeration.push(primitive === 'string' ? value : primitive === 'boolean' ? value === 'true' || value === '1' : Number(value));
          break;
        case 'pattern':
          patterns.push(value);
          break;
        case 'length':
          facets.minLength = facets.maxLength = Number(value);
          break;
        case 'minLength':
          facets.minLength = Number(value);
          break;
        case 'maxLength':
          facets.maxLength = Number(value);
          break;
        case 'minInclusive':
          facets.minimum = Number(value);
          break;
        case 'maxInclusive':
          facets.maximum = Number(value);
          break;
        case 'minExclusive':
          facets.exclusiveMinimum = Number(value);
          break;
        case 'maxExclusive':
          facets.exclusiveMaximum = Number(value);
          break;
        default:
          // totalDigits, fractionDigits, whiteSpace: about the lexical form, which a JSON number does not have.
          break;
      }
    }
    if (enumeration.length > 0) facets.enum = enumeration;
    // XSD patterns match the whole value; several on one restriction are alternatives.
    if (patterns.length > 0) facets.pattern = `^(?:${patterns.join('|')})$`;
    return { ...base, ...facets };
  }

  private restrictionBase(node: XsNode): JsonSchema {
    const base = qname(node, 'base');
    if (base) return this.typeRef(base);
    const inline = node.children.find((c) => c.kind === 'simpleType');
    if (!inline) throw new Error('restriction without a base');
    return this.simpleType(inline);
  }

  /** The JSON primitive a restriction's values have, found by walking its bases down to a built-in. */
  private primitive(restriction: XsNode): Primitive {
    const base = qname(restriction, 'base');
    if (!base) {
      const inline = restriction.children.find((c) => c.kind === 'simpleType')?.children[0];
      return inline?.kind === 'restriction' ? this.primitive(inline) : 'string';
    }
    if (nsOf(base) === XS) {
      const type = builtin(localOf(base)).type;
      return type === 'number' || type === 'integer' || type === 'boolean' ? type : 'string';
    }
    const simple = this.set.simpleTypes.get(base)?.children[0];
    if (simple?.kind === 'restriction') return this.primitive(simple);
    // A complex type with simple content: its text's primitive (its extension or restriction names the base).
    const complex = this.set.complexTypes.get(base);
    const derivation = complex && this.derivation(complex);
    return derivation?.simple ? this.primitive(derivation.node) : 'string';
  }

  // ---- complex types ------------------------------------------------------------------------------------------

  private complexType(node: XsNode, name?: QName): JsonSchema {
    const shape = name ? this.shapeOf(name) : this.shape(node);
    const schema: JsonSchema = { type: 'object', properties: Object.fromEntries(shape.properties) };
    if (shape.required.size > 0) schema.required = [...shape.required];
    if (!shape.open) schema.additionalProperties = false;
    return schema;
  }

  /** The extension/restriction a complex type derives by, if any. */
  private derivation(type: XsNode): { node: XsNode; base: QName | undefined; simple: boolean } | undefined {
    const content = type.children.find((c) => c.kind === 'complexContent' || c.kind === 'simpleContent');
    const node = content?.children.find((c) => c.kind === 'extension' || c.kind === 'restriction');
    return content && node ? { node, base: qname(node, 'base'), simple: content.kind === 'simpleContent' } : undefined;
  }

  private shapeOf(name: QName): ObjectShape {
    let shape = this.shapes.get(name);
    if (!shape) {
      shape = this.shape(this.global(this.set.complexTypes, name, 'complexType'));
      this.shapes.set(name, shape);
    }
    return shape;
  }

  /** A base type's shape, to build on (xs:anyType, the implicit base, contributes nothing we can enumerate). */
  private baseShape(base: QName | undefined): ObjectShape {
    if (!base || base === `{${XS}}anyType`) return { properties: new Map(), required: new Set(), open: false };
    return cloneShape(this.shapeOf(base));
  }

  private shape(type: XsNode): ObjectShape {
    const derivation = this.derivation(type);
    if (!derivation) {
      const shape: ObjectShape = { properties: new Map(), required: new Set(), open: false };
      this.contents(type, shape);
      return shape;
    }
    const { node, base, simple } = derivation;
    if (simple) {
      // Rule 4: the text is `value`. Its schema: a simple base's, or (restricting/extending a complex type with
      // simple content) that type's `value`, with any facets given here.
      const shape = base && this.set.complexTypes.has(base) ? this.baseShape(base) : this.baseShape(undefined);
      let value = base && !this.set.complexTypes.has(base) ? this.typeRef(base) : (shape.properties.get('value') ?? {});
      if (node.kind === 'restriction') value = this.restriction(node, value);
      shape.properties.set('value', value);
      this.contents(node, shape);
      return shape;
    }
    if (node.kind === 'extension') {
      // Rule 5: the base chain's properties, then this type's.
      const shape = this.baseShape(base);
      this.contents(node, shape);
      return shape;
    }
    // A complexContent restriction restates the content model; only the attributes carry over from the base.
    const inherited = this.baseShape(base);
    const shape: ObjectShape = { properties: new Map(), required: new Set(), open: false };
    for (const attribute of this.attributeNames(base)) {
      const schema = inherited.properties.get(attribute);
      if (schema) shape.properties.set(attribute, schema);
      if (inherited.required.has(attribute)) shape.required.add(attribute);
    }
    this.contents(node, shape);
    return shape;
  }

  /** The names of the attributes a complex type declares, its bases' included. */
  private attributeNames(type: QName | undefined): string[] {
    if (!type || nsOf(type) === XS) return [];
    const node = this.global(this.set.complexTypes, type, 'complexType');
    const names: string[] = [];
    const derivation = this.derivation(node);
    names.push(...this.attributeNames(derivation?.base));
    const collect = (parent: XsNode): void => {
      for (const child of parent.children) {
        if (child.kind === 'attribute') names.push(child.attrs.name ?? localOf(mustQName(child, 'ref')));
        if (child.kind === 'attributeGroup') collect(this.global(this.set.attributeGroups, mustQName(child, 'ref'), 'attributeGroup'));
      }
    };
    collect(derivation?.node ?? node);
    return names;
  }

  /** Adds a complexType's (or extension's) content model and attributes to a shape. */
  private contents(parent: XsNode, shape: ObjectShape): void {
    for (const child of parent.children) {
      switch (child.kind) {
        case 'sequence':
        case 'choice':
        case 'all':
        case 'group':
          this.particle(child, false, shape);
          break;
        case 'attribute':
          this.attribute(child, shape);
          break;
        case 'attributeGroup':
          this.contents(this.global(this.set.attributeGroups, mustQName(child, 'ref'), 'attributeGroup'), shape);
          break;
        case 'anyAttribute':
          shape.open = true;
          break;
        default:
          break;
      }
    }
  }

  /**
   * Rule 2 and 6: walks a content model, adding each element as a property. `repeating` says an enclosing
   * sequence/choice repeats, which makes every element inside it an array.
   */
  private particle(node: XsNode, repeating: boolean, shape: ObjectShape): void {
    const max = occurs(node.attrs.maxOccurs, 1);
    if (max === 0) return;
    const repeats = repeating || max > 1;
    switch (node.kind) {
      case 'sequence':
      case 'choice':
      case 'all':
        for (const child of node.children) this.particle(child, repeats, shape);
        break;
      case 'group': {
        const group = this.global(this.set.groups, mustQName(node, 'ref'), 'group');
        for (const model of group.children) this.particle(model, repeats, shape);
        break;
      }
      case 'any':
        shape.open = true;
        break;
      case 'element':
        for (const [name, value] of this.elementProperties(node)) this.put(shape, name, repeats ? arrayOf(value) : value);
        break;
      default:
        break;
    }
  }

  /** The property (or, for a substitution group head, properties) an element particle becomes (rule 7). */
  private elementProperties(particle: XsNode): [string, JsonSchema][] {
    const ref = qname(particle, 'ref');
    if (!ref) return [[particle.attrs.name, this.elementValue(particle)]];
    const properties: [string, JsonSchema][] = [];
    const visit = (name: QName): void => {
      const element = this.global(this.set.elements, name, 'element');
      if (element.attrs.abstract !== 'true') properties.push([localOf(name), this.elementValue(element)]);
      for (const member of this.members.get(name) ?? []) visit(member);
    };
    visit(ref);
    return properties;
  }

  private attribute(node: XsNode, shape: ObjectShape): void {
    const ref = qname(node, 'ref');
    const declaration = ref ? this.global(this.set.attributes, ref, 'attribute') : node;
    const name = ref ? localOf(ref) : node.attrs.name;
    if (node.attrs.use === 'prohibited') {
      shape.properties.delete(name);
      shape.required.delete(name);
      return;
    }
    const type = qname(declaration, 'type');
    const inline = declaration.children.find((c) => c.kind === 'simpleType');
    this.put(shape, name, type ? this.typeRef(type) : inline ? this.simpleType(inline) : {});
    if (node.attrs.use === 'required') shape.required.add(name);
  }

  /** Adds a property; one name declared twice differently (choice branches, an attribute and an element) takes either. */
  private put(shape: ObjectShape, name: string, schema: JsonSchema): void {
    const existing = shape.properties.get(name);
    if (!existing || JSON.stringify(existing) === JSON.stringify(schema)) {
      shape.properties.set(name, schema);
      return;
    }
    const alternatives = Array.isArray(existing.anyOf) && Object.keys(existing).length === 1 ? existing.anyOf : [existing];
    shape.properties.set(name, { anyOf: [...alternatives, schema] });
  }
}

/**
 * Converts an XSD (and everything it includes) to JSON Schemas: one `$defs` entry per named complexType and
 * simpleType (by name, e.g. `Invoice`, `ReferenceType`, `AccountTypeEnum`) and one per global element
 * (`element:Invoice`, `element:IntuitResponse`). References between them are `#/$defs/...`.
 */
export function convertXsd(dir: string = QBO_XSD_DIR, entry = 'IntuitRestServiceDef.xsd'): { $defs: Record<string, JsonSchema> } {
  const set = new SchemaSet(dir);
  set.load(entry);
  return { $defs: new Converter(set).convert() };
}

export interface QboValidation {
  ok: boolean;
  /** Ajv's messages, one a line, each with the path into the value (e.g. `Invoice/Line/0/Amount must be number`). */
  errors: string;
}

export interface QboValidator {
  /** The names that `validate` accepts: the `$defs` keys. */
  readonly definitions: readonly string[];
  /** The converted document, e.g. to hand to another tool. */
  readonly schema: { $id: string; $defs: Record<string, JsonSchema> };
  /** Validates a value against a definition (`Invoice`, `IntuitResponse`, `Report`, `element:Customer`, ...). */
  validate(definition: string, value: unknown): QboValidation;
}

/**
 * Converts the vendored XSDs and registers them with one Ajv (draft 2020-12, all errors, formats checked). Each
 * definition is compiled on first use, so build one validator and reuse it.
 */
export function qboValidator(dir: string = QBO_XSD_DIR): QboValidator {
  const schema = { $id: QBO_SCHEMA_ID, ...convertXsd(dir) };
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(schema);
  const compiled = new Map<string, ValidateFunction>();
  return {
    definitions: Object.keys(schema.$defs),
    schema,
    validate(definition, value) {
      if (!(definition in schema.$defs)) throw new Error(`no QuickBooks definition named ${definition}`);
      let validate = compiled.get(definition);
      if (!validate) {
        validate = ajv.compile({ $ref: `${QBO_SCHEMA_ID}${defRef(definition).$ref as string}` });
        compiled.set(definition, validate);
      }
      const ok = validate(value);
      return { ok, errors: ok ? '' : ajv.errorsText(validate.errors, { dataVar: definition, separator: '\n' }) };
    },
  };
}
