import { z } from 'zod';
const s = z.object({ a: z.string() }).strict();
console.log(s.safeParse(JSON.parse('{"a":"x","__proto__":{"b":1}}')));
