// The installable site (frontend.views): registers the service worker that keeps the static
// files and shows the offline page. After the page has loaded, so that fetching the files to
// keep never competes with the page itself. Browsers without service workers go without.
if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  });
}
