/**
 * Kubernetes quantities ("500m", "4Gi", "1e3", "2k") read as numbers, in
 * the grammar of k8s.io/apimachinery's resource.Quantity: a decimal number,
 * then a binary suffix (Ki ... Ei), a decimal one (n, u, m, k, M ... E) or
 * a decimal exponent (e3, E-2). Every bound and every count of a pod's
 * resources reads them here, so that no way of writing a figure ("1k"
 * CPUs, "1e12" bytes) reads as less than it is.
 */

/** A quantity: sign, number, and at most one suffix or exponent. */
const QUANTITY =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+)|([KMGTPE]i)|([numkMGTPE]))?$/;

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** Whether `text` is a quantity Kubernetes accepts, no sign or a "+". */
export function isQuantity(text: string): boolean {
  const match = QUANTITY.exec(text);
  return match !== null && match[1] !== "-";
}

/** The value of a quantity ("500m" is 0.5, "4Gi" 4294967296); else undefined. */
export function quantityValue(text: string): number | undefined {
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign, digits, exponent, binary, decimal] = match;
  const scale = exponent !== undefined
    ? 10 ** Number(exponent)
    : binary !== undefined
    ? BINARY[binary]
    : decimal !== undefined
    ? DECIMAL[decimal]
    : 1;
  const value = Number(digits) * scale;
  return sign === "-" ? -value : value;
}

/** CPUs of a cpu quantity ("2", "500m", "1k"); 0 when it is not one. */
export function cpusOf(quantity: string): number {
  return Math.max(quantityValue(quantity) ?? 0, 0);
}

/** GiB of a memory quantity ("4Gi", "512Mi", "4G", "1e9"); 0 when not one. */
export function gibOf(quantity: string): number {
  return Math.max(quantityValue(quantity) ?? 0, 0) / 2 ** 30;
}
