/** A tiny RBAC authorizer: an allow-list of rules like those of a (Cluster)Role. */

/** One rule; '*' matches any group, resource or verb. Without namespaces it applies cluster-wide. */
export interface AllowRule {
  group: string;
  resource: string;
  verbs: string[];
  /** Limits the rule to these namespaces (a RoleBinding); cluster-scope requests then are denied. */
  namespaces?: string[];
}

/** The RBAC verb of a request: get/list/watch for reads, create/update/patch/delete for writes. */
export function verbOf(method: string, hasName: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return hasName ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** True when some rule allows the verb on group/resource in the namespace (undefined = cluster scope). */
export function isAllowed(
  rules: readonly AllowRule[] | undefined,
  req: { verb: string; group: string; resource: string; namespace?: string },
): boolean {
  if (!rules) return true;
  const any = (list: readonly string[], v: string) => list.includes('*') || list.includes(v);
  return rules.some(
    (r) =>
      (r.group === '*' || r.group === req.group) &&
      (r.resource === '*' || r.resource === req.resource) &&
      any(r.verbs, req.verb) &&
      (!r.namespaces || (req.namespace !== undefined && r.namespaces.includes(req.namespace))),
  );
}
