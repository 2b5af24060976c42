/** The transports a call comes on: what metrics, logs and audit tell apart. */
export type Transport = "http" | "grpc";
