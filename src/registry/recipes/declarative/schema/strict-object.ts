/** zod's strict object with an error that names the allowed keys: every object of a recipe document is one. */
import { z } from 'zod';

export function strict<S extends z.core.$ZodLooseShape>(shape: S) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => `"${k}"`).join(', ')}; allowed: ${allowed}` : undefined),
  });
}
