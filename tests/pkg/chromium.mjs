// How the Node tests start Debian's Chromium here: headless, as root (no
// sandbox), and quiet on the closed network (no background connections).

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export const FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
