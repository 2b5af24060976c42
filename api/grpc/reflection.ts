/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha, @grpc/reflection),
 * so generic tools (grpcurl, Postman, a Python client with the reflection
 * protocol) list and describe the services without the .proto files.
 *
 * @grpc/reflection wants the FileDescriptorProtos of the services. They are
 * generated here from the same protobufjs reflection the gRPC adapter
 * serves, one descriptor per .proto file as protoc would write it: the
 * file's import name ("cluster.proto", "google/protobuf/timestamp.proto"),
 * package, fully qualified type names, map entries as nested `XEntry`
 * messages, proto3 `optional` fields with their synthetic oneofs, and the
 * imports the file's types really use. protobufjs' own `toDescriptor` would
 * merge every file of a package into one and leave names relative, which
 * strict clients (protobuf's C++ and upb descriptor pools) refuse.
 *
 * Options are left out, custom ones (google.api.http, field_behavior) too:
 * they would make every client fetch google/protobuf/descriptor.proto, and
 * reflection clients need the shapes only. The OpenAPI document carries
 * the http rules and field behaviours.
 */
import type * as grpc from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import protobuf from "protobufjs";

type Definition = protobuf.Type | protobuf.Enum | protobuf.Service;

/** Adds the reflection services for `services` (any roots) to the server. */
export function addReflection(
  server: grpc.Server,
  services: protobuf.Service[],
  descriptorRoot: protobuf.Root,
): void {
  const files = fileDescriptorProtos(services, descriptorRoot);
  // @grpc/reflection reads only `fileDescriptorProtos` of a proto-loader
  // package definition.
  const packageDefinition = Object.fromEntries(
    services.map((s) => [
      s.fullName.slice(1),
      { fileDescriptorProtos: files },
    ]),
  );
  new ReflectionService(
    packageDefinition as unknown as ConstructorParameters<
      typeof ReflectionService
    >[0],
  ).addToServer(server);
}

/**
 * The encoded FileDescriptorProtos of the files that define the services
 * and every file they depend on, dependencies first. `descriptorRoot` is a
 * root holding google.protobuf.FileDescriptorProto (any root that loaded
 * google/protobuf/descriptor.proto, such as the API's: its http
 * annotations import it).
 */
export function fileDescriptorProtos(
  services: protobuf.Service[],
  descriptorRoot: protobuf.Root,
): Buffer[] {
  const FileDescriptorProto = descriptorRoot.lookupType(
    "google.protobuf.FileDescriptorProto",
  );
  return fileDescriptors(services).map((file) =>
    Buffer.from(
      FileDescriptorProto.encode(FileDescriptorProto.fromObject(file)).finish(),
    )
  );
}

/** The FileDescriptorProtos (as plain objects) the services need. */
export function fileDescriptors(
  services: protobuf.Service[],
): Record<string, unknown>[] {
  const names = fileNamer(services);
  // Every top-level definition of every file the services' roots hold.
  const byFile = new Map<string, Definition[]>();
  for (const root of new Set(services.map((s) => s.root))) {
    collectDefinitions(root, (definition) => {
      const file = names(definition);
      byFile.set(file, [...byFile.get(file) ?? [], definition]);
    });
  }
  // The files of the services and, transitively, of the types they use.
  const order: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (order.includes(file)) return;
    if (path.includes(file)) {
      throw new Error(
        `Cannot describe the API: import cycle ${[...path, file].join(" -> ")}`,
      );
    }
    for (const dependency of dependencies(byFile.get(file) ?? [], names)) {
      if (dependency !== file) visit(dependency, [...path, file]);
    }
    order.push(file);
  };
  // Sorted: the order in which .proto files finish loading varies.
  for (const file of [...new Set(services.map(names))].sort()) visit(file, []);
  return order.map((file) => {
    const definitions = byFile.get(file) ?? [];
    const pkg = definitions[0]?.parent?.fullName.slice(1) ?? "";
    return {
      name: file,
      package: pkg || undefined,
      dependency: dependencies(definitions, names).filter((d) => d !== file)
        .sort(),
      messageType: definitions.filter(isType).map(messageDescriptor),
      enumType: definitions.filter(isEnum).map(enumDescriptor),
      service: definitions.filter(isService).map(serviceDescriptor),
      syntax: "proto3",
    };
  });
}

function isType(d: protobuf.ReflectionObject): d is protobuf.Type {
  return d instanceof protobuf.Type;
}

function isEnum(d: protobuf.ReflectionObject): d is protobuf.Enum {
  return d instanceof protobuf.Enum;
}

function isService(d: protobuf.ReflectionObject): d is protobuf.Service {
  return d instanceof protobuf.Service;
}

/** Calls `visit` with every message, enum and service outside a message. */
function collectDefinitions(
  ns: protobuf.NamespaceBase,
  visit: (definition: Definition) => void,
): void {
  for (const nested of ns.nestedArray) {
    if (isType(nested) || isEnum(nested) || isService(nested)) visit(nested);
    else if (nested instanceof protobuf.Namespace) {
      collectDefinitions(nested, visit);
    }
  }
}

/**
 * Names each definition's file as it is imported: a relative file name as
 * it is; an absolute one relative to the directory of the services' files,
 * or from "google/" for Google's protos; protobufjs' built-in well-known
 * types by the file that defines them.
 */
function fileNamer(
  services: protobuf.Service[],
): (definition: protobuf.ReflectionObject) => string {
  const base = commonDirectory(
    services.map((s) => s.filename ?? "").filter((f) => f.startsWith("/")),
  );
  const wellKnown = new Map<string, string>();
  for (const name of WELL_KNOWN_FILES) {
    const file = `google/protobuf/${name}.proto`;
    const json = protobuf.common.get(file) as {
      nested?: { google?: { nested?: { protobuf?: protobuf.INamespace } } };
    } | null;
    const types = json?.nested?.google?.nested?.protobuf?.nested ?? {};
    for (const type of Object.keys(types)) {
      wellKnown.set(`.google.protobuf.${type}`, file);
    }
  }
  return (definition) => {
    let top = definition;
    while (top.parent && (isType(top.parent) || isService(top.parent))) {
      top = top.parent;
    }
    const filename = top.filename;
    if (!filename) {
      const known = wellKnown.get(top.fullName);
      if (known) return known;
      throw new Error(
        `Cannot describe the API: ${top.fullName.slice(1)} comes from no file`,
      );
    }
    if (!filename.startsWith("/")) return filename;
    if (base && filename.startsWith(base)) return filename.slice(base.length);
    const google = filename.lastIndexOf("/google/");
    if (google >= 0) return filename.slice(google + 1);
    return filename.replace(/^.*\//, "");
  };
}

/** The files protobufjs defines its built-in well-known types from. */
const WELL_KNOWN_FILES = [
  "any",
  "duration",
  "empty",
  "field_mask",
  "struct",
  "timestamp",
  "wrappers",
];

function commonDirectory(files: string[]): string {
  const dirs = files.map((f) => f.replace(/[^/]*$/, ""));
  let common = dirs[0] ?? "";
  for (const dir of dirs) {
    while (!dir.startsWith(common)) {
      common = common.replace(/[^/]*\/$/, "");
    }
  }
  return common;
}

/** The files of the types the definitions refer to. */
function dependencies(
  definitions: Definition[],
  names: (definition: protobuf.ReflectionObject) => string,
): string[] {
  const files = new Set<string>();
  const visitType = (type: protobuf.Type) => {
    for (const field of type.fieldsArray) {
      field.resolve();
      if (field.resolvedType) files.add(names(field.resolvedType));
    }
    for (const nested of type.nestedArray) {
      if (isType(nested)) visitType(nested);
    }
  };
  for (const definition of definitions) {
    if (isType(definition)) visitType(definition);
    if (isService(definition)) {
      for (const method of definition.methodsArray) {
        method.resolve();
        files.add(names(method.resolvedRequestType!));
        files.add(names(method.resolvedResponseType!));
      }
    }
  }
  return [...files];
}

const SCALAR_TYPES: Record<string, string> = {
  double: "TYPE_DOUBLE",
  float: "TYPE_FLOAT",
  int64: "TYPE_INT64",
  uint64: "TYPE_UINT64",
  int32: "TYPE_INT32",
  fixed64: "TYPE_FIXED64",
  fixed32: "TYPE_FIXED32",
  bool: "TYPE_BOOL",
  string: "TYPE_STRING",
  bytes: "TYPE_BYTES",
  uint32: "TYPE_UINT32",
  sfixed32: "TYPE_SFIXED32",
  sfixed64: "TYPE_SFIXED64",
  sint32: "TYPE_SINT32",
  sint64: "TYPE_SINT64",
};

function messageDescriptor(type: protobuf.Type): Record<string, unknown> {
  const isSynthetic = (oneof: protobuf.OneOf) =>
    oneof.fieldsArray.length === 1 &&
    oneof.fieldsArray[0].options?.proto3_optional === true;
  // Real oneofs first, then the synthetic ones of proto3 `optional` fields.
  const oneofs = [
    ...type.oneofsArray.filter((o) => !isSynthetic(o)),
    ...type.oneofsArray.filter(isSynthetic),
  ];
  const mapEntries: Record<string, unknown>[] = [];
  const fields = type.fieldsArray.map((field) => {
    field.resolve();
    const protoName = field.protoName ?? field.name;
    const descriptor: Record<string, unknown> = {
      name: protoName,
      number: field.id,
      label: field.repeated || field.map
        ? "LABEL_REPEATED"
        : field.required
        ? "LABEL_REQUIRED"
        : "LABEL_OPTIONAL",
      jsonName: field.jsonName ?? field.name,
    };
    if (field.map) {
      const entry = `${upperCamel(protoName)}Entry`;
      const keyType = (field as unknown as protobuf.MapField).keyType;
      mapEntries.push({
        name: entry,
        field: [
          {
            name: "key",
            number: 1,
            label: "LABEL_OPTIONAL",
            type: SCALAR_TYPES[keyType],
            jsonName: "key",
          },
          {
            name: "value",
            number: 2,
            label: "LABEL_OPTIONAL",
            jsonName: "value",
            ...valueType(field),
          },
        ],
        options: { mapEntry: true },
      });
      descriptor.type = "TYPE_MESSAGE";
      descriptor.typeName = `${type.fullName}.${entry}`;
    } else {
      Object.assign(descriptor, valueType(field));
    }
    if (field.partOf) {
      descriptor.oneofIndex = oneofs.indexOf(field.partOf);
      if (isSynthetic(field.partOf)) descriptor.proto3Optional = true;
    }
    return descriptor;
  });
  return {
    name: type.name,
    field: fields,
    nestedType: [
      ...type.nestedArray.filter(isType).map(messageDescriptor),
      ...mapEntries,
    ],
    enumType: type.nestedArray.filter(isEnum).map(enumDescriptor),
    oneofDecl: oneofs.map((oneof) => ({
      name: isSynthetic(oneof)
        ? `_${oneof.fieldsArray[0].protoName ?? oneof.fieldsArray[0].name}`
        : oneof.name,
    })),
  };
}

function valueType(field: protobuf.Field): Record<string, unknown> {
  const resolved = field.resolvedType;
  if (resolved) {
    return {
      type: isEnum(resolved) ? "TYPE_ENUM" : "TYPE_MESSAGE",
      typeName: resolved.fullName,
    };
  }
  const type = SCALAR_TYPES[field.type];
  if (!type) {
    throw new Error(
      `Cannot describe the API: ${
        field.fullName.slice(1)
      } has type ${field.type}`,
    );
  }
  return { type };
}

function enumDescriptor(e: protobuf.Enum): Record<string, unknown> {
  return {
    name: e.name,
    value: Object.entries(e.values).map(([name, number]) => ({
      name,
      number,
    })),
  };
}

function serviceDescriptor(service: protobuf.Service): Record<string, unknown> {
  return {
    name: service.name,
    method: service.methodsArray.map((method) => {
      method.resolve();
      return {
        name: method.name,
        inputType: method.resolvedRequestType!.fullName,
        outputType: method.resolvedResponseType!.fullName,
        // Unset when false, as protoc writes them.
        clientStreaming: method.requestStream || undefined,
        serverStreaming: method.responseStream || undefined,
      };
    }),
  };
}

/** "service_endpoint" -> "ServiceEndpoint", as protoc names map entries. */
function upperCamel(name: string): string {
  return name.replace(/(?:^|_)([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
