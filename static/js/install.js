// The installable site (frontend.views): registers the service worker that keeps the static
// files and shows the offline page. Browsers without service workers simply go without.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}
