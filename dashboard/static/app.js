// disco dashboard: small progressive enhancements. No credentials are ever visible here:
// the session lives in an HttpOnly cookie.
(function () {
  "use strict";
  // Times are sent in UTC; show them in the viewer's time zone.
  function localTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (!isNaN(d)) {
        el.title = el.textContent;
        el.textContent = d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { localTimes(document); });
  document.addEventListener("htmx:afterSwap", function (e) { localTimes(e.target); });

  // Upload progress: htmx reports the request's upload progress.
  document.addEventListener("htmx:xhr:progress", function (e) {
    var bar = document.getElementById("upload-progress");
    if (!bar || !e.detail.lengthComputable) { return; }
    bar.hidden = false;
    bar.value = Math.round(e.detail.loaded / e.detail.total * 100);
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (e.target.id === "upload-form") {
      var bar = document.getElementById("upload-progress");
      if (bar) { bar.hidden = false; bar.value = 0; }
      var res = document.getElementById("upload-result");
      if (res) { res.textContent = ""; }
    }
  });
})();
