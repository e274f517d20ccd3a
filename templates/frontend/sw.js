// Tessera's service worker (frontend.views.service_worker renders it): keeps the site's static
// files and an offline page. Pages, JSON and the sockets always go to the server; a page that
// cannot be reached shows the offline page instead (the game page's socket reconnects by
// itself once the network returns).
const CACHE = "tessera-static-{{ version }}";
const OFFLINE = "{{ offline_url }}";
const STATIC = {{ static_urls|safe }};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      // The offline page as a visitor sees it: never one player's header on a shared device.
      .then((cache) => cache.addAll([new Request(OFFLINE, { credentials: "omit" }), ...STATIC]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("tessera-") && name !== CACHE)
        .map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    // Static files: from the cache when kept there, else from the server.
    event.respondWith(caches.match(request).then((kept) => kept || fetch(request)));
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
  }
});
