// Imported first by every entry, so it is evaluated before any module that builds a zod schema.
//
// zod decides once, when the first object schema is built, whether it may compile parsers with `new Function`,
// and finds out by trying `Function("")`. The MCP SDK and ext-apps build their schemas while their modules
// load, long before ext-apps' `App` constructor turns zod jitless: under a widget CSP without 'unsafe-eval'
// that probe is one `securitypolicyviolation` per load, which strict hosts report. Jitless from the start, zod
// never probes (its `allowsEval` answers false without trying). This is the zod instance the SDK imports
// ("zod/v4" of the one zod package). vite.config.ts keeps this module in the runtime chunk, ahead of the SDK.

import { z } from "zod/v4";

z.config({ jitless: true });
