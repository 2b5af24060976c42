/**
 * Quota records (domain/ports.ts, QuotaRecordPort) kept in memory with
 * the API server's rules for a conditional write: a create of an existing
 * record is ALREADY_EXISTS, a replace at another version ABORTED. Most
 * tests use one namespace, NS; `record` is its record.
 */
import { Code, ServiceError } from "../../../domain/errors.ts";
import type { QuotaRecord, QuotaRecordPort } from "../../../domain/ports.ts";

export const NS = "team-a";

export class MemoryRecords implements QuotaRecordPort {
  readonly byNamespace = new Map<string, QuotaRecord>();
  writes = 0;
  /** Runs before each write is applied: another replica's write landing between this one's read and write. */
  beforeWrite?: () => void;
  #version = 0;

  get record(): QuotaRecord | undefined {
    return this.byNamespace.get(NS);
  }

  read(namespace: string): Promise<QuotaRecord | undefined> {
    const record = this.byNamespace.get(namespace);
    return Promise.resolve(record && { ...record });
  }

  write(
    namespace: string,
    charges: string,
    resourceVersion: string | undefined,
  ): Promise<QuotaRecord> {
    this.beforeWrite?.();
    const stored = this.byNamespace.get(namespace);
    if (resourceVersion === undefined && stored !== undefined) {
      return Promise.reject(new ServiceError(Code.ALREADY_EXISTS, "exists"));
    }
    if (
      resourceVersion !== undefined &&
      resourceVersion !== stored?.resourceVersion
    ) {
      return Promise.reject(new ServiceError(Code.ABORTED, "conflict"));
    }
    return Promise.resolve(this.put(charges, namespace));
  }

  /** Another writer's write, unconditional. */
  put(charges: string, namespace = NS): QuotaRecord {
    this.writes++;
    const record = { charges, resourceVersion: String(++this.#version) };
    this.byNamespace.set(namespace, record);
    return { ...record };
  }

  namespaces(served: readonly string[]): Promise<string[]> {
    return Promise.resolve(
      [...this.byNamespace.keys()]
        .filter((namespace) =>
          served.length === 0 || served.includes(namespace)
        )
        .sort(),
    );
  }
}
