// Facts about one request that several hooks share (its trace, caller, plugin state), kept on the
// Request object itself under a private symbol. A WeakMap keyed by the request would do the same
// job, but every entry is an ephemeron the collector must revisit and each lookup hashes the key,
// several times the cost of reading a property, and a request of the API makes eight of them.

/** One named fact per request: read back with `get`, undefined until `set`. */
export interface RequestSlot<T> {
  get(request: Request): T | undefined;
  set(request: Request, value: T): void;
}

export function requestSlot<T>(name: string): RequestSlot<T> {
  const key = Symbol(name);
  type Holder = Request & { [key]?: T };
  return {
    get: (request) => (request as Holder)[key],
    set: (request, value) => {
      (request as Holder)[key] = value;
    },
  };
}
