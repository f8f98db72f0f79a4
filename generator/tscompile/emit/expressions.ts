/**
 * Expressions → C++ expressions with their types: literals, names, property and element access,
 * object and array literals, calls of the module's own functions; operators are in operators.ts,
 * the standard library's calls and constants in tscompile/builtins/.
 */
import type {
  CallExpression,
  Expression,
  Identifier,
  ObjectLiteralExpression,
  PropertyAccessExpression,
  TemplateExpression,
} from 'ts-morph';
import { Node, SyntaxKind } from '../tsMorph.js';
import { cppName, cppNumberLiteral, cppStringLiteral } from '../cppText.js';
import { BOOLEAN, NUMBER, STRING, cppType, typeName, type TsType } from '../types.js';
import { convertType } from '../typeConversion.js';
import { globalCall, globalConstant, methodCall, newBuiltin, staticCall } from '../builtins/index.js';
import type { Emitter } from './emitter.js';
import { binary, postfix, prefix } from './operators.js';
import { isGlobal, Unsupported, type Value } from './unsupported.js';

/** An assignable place: `code` is a C++ lvalue, or `setter(value)` for typed array elements. */
export interface Place {
  code: string;
  read: string;
  type: TsType;
  setter?: (v: string) => string;
}

export function expression(em: Emitter, e: Expression | Node, discarded: boolean): Value {
  if (Node.isParenthesizedExpression(e)) {
    const v = em.expr(e.getExpression());
    return { code: `(${v.code})`, type: v.type };
  }
  // The checker's own text (separators removed, 0x… kept): ts-morph's getLiteralValue misreads 1e-10.
  if (Node.isNumericLiteral(e)) return { code: cppNumberLiteral(Number(e.compilerNode.text)), type: NUMBER };
  if (Node.isStringLiteral(e) || Node.isNoSubstitutionTemplateLiteral(e))
    return { code: cppStringLiteral(e.getLiteralValue()), type: STRING };
  if (Node.isTrueLiteral(e) || Node.isFalseLiteral(e)) return { code: e.getText(), type: BOOLEAN };
  if (Node.isTemplateExpression(e)) return template(em, e);
  if (Node.isIdentifier(e)) return identifier(em, e);
  if (Node.isBinaryExpression(e)) return binary(em, e, discarded);
  if (Node.isPrefixUnaryExpression(e)) return prefix(em, e);
  if (Node.isPostfixUnaryExpression(e)) return postfix(em, e);
  if (Node.isConditionalExpression(e)) {
    const c = em.condition(e.getCondition());
    const t = em.expr(e.getWhenTrue());
    const f = em.expr(e.getWhenFalse());
    const type = em.tsType(e.getType(), e);
    return {
      code: `(${c} ? ${em.convert(t, type, e.getWhenTrue())} : ${em.convert(f, type, e.getWhenFalse())})`,
      type,
    };
  }
  if (Node.isPropertyAccessExpression(e)) return property(em, e);
  if (Node.isElementAccessExpression(e)) {
    const target = em.lvalue(e);
    return { code: target.read, type: target.type };
  }
  if (Node.isCallExpression(e)) return call(em, e);
  if (Node.isNewExpression(e)) return newBuiltin(em, e);
  if (Node.isArrayLiteralExpression(e)) return arrayLiteral(em, e);
  if (Node.isObjectLiteralExpression(e)) return objectLiteral(em, e);
  if (Node.isAsExpression(e) || Node.isTypeAssertion(e) || Node.isSatisfiesExpression(e)) {
    const v = em.expr(e.getExpression());
    const target = em.typeOf(e);
    if (cppType(target) !== cppType(v.type)) {
      throw new Unsupported(
        e,
        `a type assertion from ${typeName(v.type)} to ${typeName(target)} is not in the subset (there is no conversion at run time)`,
      );
    }
    return { code: v.code, type: target };
  }
  if (Node.isNonNullExpression(e)) {
    const v = em.expr(e.getExpression());
    if (v.type.kind !== 'optional') return v;
    return {
      code: `tsrt::unwrap(${v.code}, u${JSON.stringify(e.getExpression().getText().slice(0, 60))})`,
      type: v.type.inner,
    };
  }
  refuseExpression(e);
}

/** The expressions outside the subset, each with what to write instead. */
function refuseExpression(e: Node): never {
  if (Node.isArrowFunction(e) || Node.isFunctionExpression(e)) {
    throw new Unsupported(
      e,
      'function values are in the subset only as the callback of an array method (map, filter, sort…)',
    );
  }
  if (Node.isRegularExpressionLiteral(e)) {
    throw new Unsupported(
      e,
      'regular expressions are not in the subset: use indexOf, includes, split, replaceAll with strings',
    );
  }
  if (e.getKind() === SyntaxKind.NullKeyword || (Node.isIdentifier(e) && e.getText() === 'undefined')) {
    throw new Unsupported(e, 'null and undefined are not in the subset: use a value of the type ("" or -1)');
  }
  if (Node.isTypeOfExpression(e))
    throw new Unsupported(e, 'typeof is not in the subset: every value has one static type');
  if (e.getKind() === SyntaxKind.ThisKeyword)
    throw new Unsupported(e, 'this and classes are not in the subset: use interfaces and functions');
  throw new Unsupported(e, `this expression (${e.getKindName()}) is not in the subset`);
}

function template(em: Emitter, e: TemplateExpression): Value {
  const parts: string[] = [];
  const head = e.getHead().getLiteralText();
  if (head) parts.push(cppStringLiteral(head));
  for (const span of e.getTemplateSpans()) {
    const inner = span.getExpression();
    parts.push(em.toStr(em.expr(inner), inner));
    const lit = span.getLiteral().getLiteralText();
    if (lit) parts.push(cppStringLiteral(lit));
  }
  if (parts.length === 1) parts.unshift('tsrt::Str()');
  return { code: `(${parts.join(' + ')})`, type: STRING };
}

function arrayLiteral(em: Emitter, e: import('ts-morph').ArrayLiteralExpression): Value {
  const ctx = e.getContextualType();
  const fromContext = ctx && convertType(ctx, em.moduleFile, em.structs);
  const type =
    fromContext?.ok && fromContext.type.kind === 'array'
      ? fromContext.type
      : em.tsType(e.getType(), e, 'this array');
  if (type.kind !== 'array')
    throw new Unsupported(e, `an array literal used as ${typeName(type)} is not in the subset`);
  const items = e.getElements().map((el) => {
    if (Node.isSpreadElement(el))
      throw new Unsupported(el, 'spread is not in the subset: use concat or push');
    if (Node.isOmittedExpression(el)) throw new Unsupported(el, 'arrays with holes are not in the subset');
    return em.convert(em.expr(el), type.element, el);
  });
  return { code: `${cppType(type)}{${items.join(', ')}}`, type };
}

export function identifier(em: Emitter, e: Identifier): Value {
  const name = e.getText();
  if (name === 'undefined')
    throw new Unsupported(e, 'undefined is not in the subset: use a value of the type ("" or -1)');
  if (name === 'NaN' || name === 'Infinity')
    return { code: name === 'NaN' ? 'tsrt::kNaN' : 'tsrt::kInf', type: NUMBER };
  const type = em.typeOf(e);
  return { code: cppName(name), type };
}

function objectLiteral(em: Emitter, e: ObjectLiteralExpression): Value {
  const type = em.tsType(e.getContextualType() ?? e.getType(), e, 'this object');
  if (type.kind !== 'struct')
    throw new Unsupported(
      e,
      `an object literal used as ${typeName(type)}: declare an interface and annotate the value with it`,
    );
  const fields = em.structs.get(type.name)!;
  const values = new Map<string, { node: Node; value: Value }>();
  const order: string[] = [];
  for (const p of e.getProperties()) {
    if (Node.isPropertyAssignment(p)) {
      const init = p.getInitializerOrThrow();
      order.push(p.getName());
      values.set(p.getName(), { node: init, value: em.expr(init) });
    } else if (Node.isShorthandPropertyAssignment(p)) {
      order.push(p.getName());
      values.set(p.getName(), { node: p, value: identifier(em, p.getNameNode()) });
    } else {
      throw new Unsupported(
        p,
        'only `name: value` properties are in the subset (no spread, methods or getters)',
      );
    }
  }
  // JSON.stringify prints properties in creation order; C++ structs print in declaration order.
  const declared = fields.map((f) => f.name);
  if (order.join('\u0000') !== declared.join('\u0000')) {
    throw new Unsupported(
      e,
      `list the properties in the order ${type.name} declares them: { ${declared.join(', ')} }`,
    );
  }
  const inits = fields.map((f) => {
    const v = values.get(f.name)!;
    return em.convert(v.value, f.type, v.node);
  });
  const struct = cppName(type.name);
  return { code: `tsrt::makeShared<${struct}>(${struct}{${inits.join(', ')}})`, type };
}

export function lvalue(em: Emitter, e: Node): Place {
  if (Node.isParenthesizedExpression(e)) return em.lvalue(e.getExpression());
  if (Node.isIdentifier(e)) {
    const v = identifier(em, e);
    return { code: v.code, read: v.code, type: v.type };
  }
  if (Node.isPropertyAccessExpression(e)) {
    const obj = em.expr(e.getExpression());
    if (obj.type.kind === 'struct') {
      const f = em.structs.get(obj.type.name)!.find((x) => x.name === e.getName());
      if (!f) throw new Unsupported(e, `${obj.type.name} has no field ${e.getName()}`);
      const code = `${obj.code}->${cppName(e.getName())}`;
      return { code, read: code, type: f.type };
    }
    throw new Unsupported(e, `assigning to .${e.getName()} is not in the subset`);
  }
  if (Node.isElementAccessExpression(e)) return element(em, e);
  throw new Unsupported(e, 'this cannot be assigned to');
}

/** a[i]: arrays and typed arrays checked against their length, strings read one unit. */
function element(em: Emitter, e: import('ts-morph').ElementAccessExpression): Place {
  const obj = em.expr(e.getExpression());
  const arg = e.getArgumentExpression();
  if (!arg) throw new Unsupported(e, 'an index is missing');
  const idx = em.expr(arg);
  if (idx.type.kind !== 'number')
    throw new Unsupported(
      arg,
      'indexes must be numbers (objects are not dictionaries in the subset: use a Map)',
    );
  if (obj.type.kind === 'array') {
    const writable = e.getParentIfKind(SyntaxKind.BinaryExpression)?.getLeft() === e;
    return {
      code: writable ? `${obj.code}.put(${idx.code})` : `${obj.code}.at(${idx.code})`,
      read: `${obj.code}.at(${idx.code})`,
      type: obj.type.element,
    };
  }
  if (obj.type.kind === 'typed') {
    return {
      code: '',
      read: `${obj.code}.get(${idx.code})`,
      type: NUMBER,
      setter: (v) => `${obj.code}.set(${idx.code}, ${v})`,
    };
  }
  if (obj.type.kind === 'string') {
    return {
      code: '',
      read: `tsrt::strIndex(${obj.code}, ${idx.code})`,
      type: STRING,
      setter: () => {
        throw new Unsupported(e, 'strings cannot be changed in place');
      },
    };
  }
  throw new Unsupported(e, `indexing a ${typeName(obj.type)} is not in the subset`);
}

function property(em: Emitter, e: PropertyAccessExpression): Value {
  if (e.hasQuestionDotToken()) throw new Unsupported(e, 'optional chaining (?.) is not in the subset');
  const objNode = e.getExpression();
  const name = e.getName();
  if (Node.isIdentifier(objNode) && isGlobal(objNode)) return globalConstant(objNode.getText(), name, e);
  const obj = em.expr(objNode);
  const t = obj.type;
  if (name === 'length' && (t.kind === 'string' || t.kind === 'array' || t.kind === 'typed')) {
    return { code: `static_cast<double>(${obj.code}.size())`, type: NUMBER };
  }
  if (name === 'size' && (t.kind === 'map' || t.kind === 'set'))
    return { code: `${obj.code}.size()`, type: NUMBER };
  if (t.kind === 'struct') {
    const f = em.structs.get(t.name)!.find((x) => x.name === name);
    if (!f) throw new Unsupported(e, `${t.name} has no field ${name}`);
    return { code: `${obj.code}->${cppName(name)}`, type: f.type };
  }
  throw new Unsupported(e, `.${name} on a ${typeName(t)} is not in the subset`);
}

function call(em: Emitter, c: CallExpression): Value {
  const callee = c.getExpression();
  if (c.getTypeArguments().length > 0 && !Node.isPropertyAccessExpression(callee)) {
    throw new Unsupported(c, 'explicit type arguments on calls are not in the subset');
  }
  if (Node.isIdentifier(callee)) {
    const name = callee.getText();
    if (em.moduleFunctions.has(name) && !isGlobal(callee)) {
      const fnDecl = callee.getSymbol()?.getDeclarations()[0];
      const params = fnDecl && Node.isFunctionDeclaration(fnDecl) ? fnDecl.getParameters() : [];
      // TypeScript reports it too (TS2554); JS would drop the extra values, C++ has no place for them.
      if (c.getArguments().length > params.length)
        throw new Unsupported(
          c,
          `${name} takes ${params.length} argument(s) and this call passes ${c.getArguments().length}: remove the extra ones`,
        );
      const args = em.args(c).map((a, i) => em.argAs(a, em.tsType(params[i]!.getType(), params[i]!), c));
      return { code: `${cppName(name)}(${args.join(', ')})`, type: em.typeOf(c) };
    }
    return globalCall(em, callee, em.args(c), c);
  }
  if (!Node.isPropertyAccessExpression(callee))
    throw new Unsupported(callee, 'only calls of module functions and methods are in the subset');
  if (callee.hasQuestionDotToken())
    throw new Unsupported(callee, 'optional chaining (?.) is not in the subset');
  const method = callee.getName();
  const recvNode = callee.getExpression();
  const args = em.args(c);
  if (Node.isIdentifier(recvNode) && isGlobal(recvNode))
    return staticCall(em, recvNode.getText(), method, args, c);
  return methodCall(em, em.expr(recvNode), method, args, c);
}
