// Starts unleash-server from its package, configured by the usual
// environment variables (DATABASE_*, HTTP_PORT, INIT_ADMIN_API_TOKENS).
//
// The open-source edition shows only the project "default" and the
// environments development and production, whatever its database holds.
// The migration test needs a second project and a third environment, as
// Pro and Enterprise instances have, so the server runs with the Pro
// edition's view of its data.
import { start } from 'unleash-server';

try {
  await start({ ui: { environment: 'pro' } });
} catch (error) {
  console.error(error);
  process.exit(1);
}
