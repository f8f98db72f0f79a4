/**
 * Checker types (ts-morph) onto the subset's types (`types.ts`): what the compiler reads a
 * module's declarations as.
 */
import type { Type } from 'ts-morph';
import { Node } from './tsMorph.js';
import {
  STRING,
  NUMBER,
  BOOLEAN,
  VOID,
  TYPED_ARRAYS,
  typeName,
  cppType,
  isKeyType,
  type StructField,
  type TsType,
  type TypedArrayName,
} from './types.js';

export type TypeResult = { ok: true; type: TsType } | { ok: false; why: string };

/**
 * Maps a checker type onto the subset. `structs` collects the interfaces and type aliases of the
 * module that the type reaches (declared in `moduleFile` only: a type from elsewhere has no
 * C++ counterpart).
 */
export function convertType(type: Type, moduleFile: string, structs: Map<string, StructField[]>): TypeResult {
  if (type.isString() || type.isStringLiteral() || type.isTemplateLiteral())
    return { ok: true, type: STRING };
  if (type.isNumber() || type.isNumberLiteral()) return { ok: true, type: NUMBER };
  if (type.isBoolean() || type.isBooleanLiteral()) return { ok: true, type: BOOLEAN };
  if (type.isVoid()) return { ok: true, type: VOID };
  if (type.isUnion()) {
    const parts = type.getUnionTypes();
    const defined = parts.filter((p) => !p.isUndefined());
    if (defined.length < parts.length) {
      const inner = convertUnion(defined, moduleFile, structs);
      if (!inner.ok) return inner;
      return { ok: true, type: { kind: 'optional', inner: inner.type } };
    }
    return convertUnion(parts, moduleFile, structs);
  }
  if (type.isArray() || type.isReadonlyArray()) {
    const element = type.getArrayElementType() ?? type.getTypeArguments()[0];
    if (!element) return { ok: false, why: 'an array whose element type is unknown' };
    const e = convertType(element, moduleFile, structs);
    if (!e.ok) return e;
    if (e.type.kind === 'optional' || e.type.kind === 'void')
      return { ok: false, why: 'arrays of optional values' };
    return { ok: true, type: { kind: 'array', element: e.type, readonly: type.isReadonlyArray() } };
  }
  if (type.isTuple()) return { ok: false, why: 'tuples (use an interface with named fields, or an array)' };
  const symbol = type.getSymbol() ?? type.getAliasSymbol();
  const name = symbol?.getName();
  if (name && name in TYPED_ARRAYS && isLibSymbol(symbol))
    return { ok: true, type: { kind: 'typed', name: name as TypedArrayName } };
  if ((name === 'Map' || name === 'ReadonlyMap') && isLibSymbol(symbol)) {
    const [k, v] = type.getTypeArguments();
    if (!k || !v) return { ok: false, why: 'a Map without key and value types' };
    const key = convertType(k, moduleFile, structs);
    const value = convertType(v, moduleFile, structs);
    if (!key.ok) return key;
    if (!value.ok) return value;
    if (!isKeyType(key.type))
      return {
        ok: false,
        why: `Map keys of type ${typeName(key.type)} (use string, number or boolean keys)`,
      };
    return { ok: true, type: { kind: 'map', key: key.type, value: value.type } };
  }
  if ((name === 'Set' || name === 'ReadonlySet') && isLibSymbol(symbol)) {
    const [k] = type.getTypeArguments();
    if (!k) return { ok: false, why: 'a Set without an element type' };
    const key = convertType(k, moduleFile, structs);
    if (!key.ok) return key;
    if (!isKeyType(key.type))
      return { ok: false, why: `Set elements of type ${typeName(key.type)} (use string, number or boolean)` };
    return { ok: true, type: { kind: 'set', element: key.type } };
  }
  if (type.isObject() && symbol) {
    const structName = type.getAliasSymbol()?.getName() ?? symbol.getName();
    const decl = (type.getAliasSymbol() ?? symbol).getDeclarations()[0];
    const fromModule = decl && decl.getSourceFile().getFilePath() === moduleFile;
    if (
      !fromModule ||
      !(Node.isInterfaceDeclaration(decl) || Node.isTypeAliasDeclaration(decl)) ||
      structName.startsWith('__')
    ) {
      if (type.getCallSignatures().length > 0)
        return { ok: false, why: 'function values (call the function directly)' };
      // An object literal's own type: the module interface with the same fields in the same order.
      if (type.isAnonymous() && decl && decl.getSourceFile().getFilePath() === moduleFile) {
        const props = type.getProperties();
        for (const [sname, fields] of structs) {
          if (fields.length !== props.length) continue;
          const same = props.every((p, i) => {
            const f = fields[i]!;
            const pd = p.getDeclarations()[0];
            if (p.getName() !== f.name || !pd) return false;
            const pt = convertType(p.getTypeAtLocation(pd), moduleFile, structs);
            return pt.ok && cppType(pt.type) === cppType(f.type);
          });
          if (same) return { ok: true, type: { kind: 'struct', name: sname } };
        }
      }
      return {
        ok: false,
        why: `the type ${type.getText()} (declare an interface in this module for object values)`,
      };
    }
    if (Node.isInterfaceDeclaration(decl) && decl.getTypeParameters().length > 0)
      return { ok: false, why: 'generic interfaces' };
    if (!structs.has(structName)) {
      const fields: StructField[] = [];
      structs.set(structName, fields); // registered first: recursive types refer to themselves
      for (const prop of type.getProperties()) {
        const pdecl = prop.getDeclarations()[0];
        if (!pdecl || (!Node.isPropertySignature(pdecl) && !Node.isPropertyAssignment(pdecl))) {
          return { ok: false, why: `the member ${prop.getName()} of ${structName} (only plain properties)` };
        }
        if (Node.isPropertySignature(pdecl) && pdecl.hasQuestionToken()) {
          return {
            ok: false,
            why: `the optional property ${prop.getName()} of ${structName} (give it a value always)`,
          };
        }
        const ft = convertType(prop.getTypeAtLocation(pdecl), moduleFile, structs);
        if (!ft.ok) return { ok: false, why: `${ft.why}, in ${structName}.${prop.getName()}` };
        if (ft.type.kind === 'optional' || ft.type.kind === 'void')
          return { ok: false, why: `the optional property ${structName}.${prop.getName()}` };
        const tags: Record<string, string> = {};
        if (Node.isPropertySignature(pdecl)) {
          for (const doc of pdecl.getJsDocs())
            for (const tag of doc.getTags()) tags[tag.getTagName()] = (tag.getCommentText() ?? '').trim();
        }
        fields.push({ name: prop.getName(), type: ft.type, tags });
      }
    }
    return { ok: true, type: { kind: 'struct', name: structName } };
  }
  if (type.isUndefined() || type.isNull()) return { ok: false, why: 'undefined and null values' };
  if (type.isAny() || type.isUnknown())
    return { ok: false, why: 'values of type any/unknown (annotate the type)' };
  if (type.isEnum() || type.isEnumLiteral())
    return { ok: false, why: 'enums (use string literal unions or numbers)' };
  return { ok: false, why: `the type ${type.getText()}` };
}

function convertUnion(parts: Type[], moduleFile: string, structs: Map<string, StructField[]>): TypeResult {
  if (parts.every((p) => p.isStringLiteral() || p.isString())) return { ok: true, type: STRING };
  if (parts.every((p) => p.isNumberLiteral() || p.isNumber())) return { ok: true, type: NUMBER };
  if (parts.every((p) => p.isBooleanLiteral() || p.isBoolean())) return { ok: true, type: BOOLEAN };
  if (parts.length === 1) return convertType(parts[0]!, moduleFile, structs);
  return { ok: false, why: `union types (${parts.map((p) => p.getText()).join(' | ')})` };
}

function isLibSymbol(symbol: ReturnType<Type['getSymbol']>): boolean {
  const decl = symbol?.getDeclarations()[0];
  return !decl || decl.getSourceFile().isDeclarationFile();
}
