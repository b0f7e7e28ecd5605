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

// Ledger inclusion proofs are checked here, not taken on the server's word: the Merkle
// root is recomputed from the entry hash and the audit path (RFC 9162 section 2.1.3.2;
// leaf = SHA-256(0x00 || entry hash), node = SHA-256(0x01 || left || right)) and must
// equal the root of the signed checkpoint that came with the proof.
window.disco = window.disco || {};
(function () {
  "use strict";
  function b64(s) { return Uint8Array.from(atob(s), function (c) { return c.charCodeAt(0); }); }
  function hex(s) { var out = new Uint8Array(s.length / 2); for (var i = 0; i < out.length; i++) { out[i] = parseInt(s.substr(i * 2, 2), 16); } return out; }
  function cat(prefix, a, b) { var out = new Uint8Array(1 + a.length + (b ? b.length : 0)); out[0] = prefix; out.set(a, 1); if (b) { out.set(b, 1 + a.length); } return out; }
  async function sha(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }
  function same(a, b) { if (a.length !== b.length) { return false; } for (var i = 0; i < a.length; i++) { if (a[i] !== b[i]) { return false; } } return true; }
  window.disco.verifyInclusion = async function (p) {
    var fn = BigInt(p.leaf_index), sn = BigInt(p.tree_size) - 1n;
    if (fn > sn || !/^[0-9a-f]{64}$/.test(p.entry_hash)) { return false; }
    var r = await sha(cat(0, hex(p.entry_hash)));
    for (var i = 0; i < p.hashes.length; i++) {
      var h = b64(p.hashes[i]);
      if (sn === 0n) { return false; }
      if ((fn & 1n) === 1n || fn === sn) {
        r = await sha(cat(1, h, r));
        while ((fn & 1n) === 0n && fn !== 0n) { fn >>= 1n; sn >>= 1n; }
      } else {
        r = await sha(cat(1, r, h));
      }
      fn >>= 1n; sn >>= 1n;
    }
    var lines = (p.checkpoint || "").split("\n");
    return sn === 0n && same(r, b64(p.root_hash)) && lines[2] === p.root_hash;
  };
  document.addEventListener("DOMContentLoaded", async function () {
    var el = document.getElementById("proof");
    if (!el) { return; }
    var out = document.getElementById("proof-result");
    if (!window.crypto || !crypto.subtle) {
      out.textContent = "This browser cannot check the proof here (it needs a secure context, HTTPS or localhost).";
      return;
    }
    var ok = false;
    try { ok = await window.disco.verifyInclusion(JSON.parse(el.dataset.proof)); } catch (e) { ok = false; }
    out.className = ok ? "ok" : "error";
    out.dataset.verified = ok ? "true" : "false";
    out.textContent = ok ? "Verified in your browser: the entry is in the ledger whose signed checkpoint root is shown below."
      : "The proof does NOT verify: the entry is not proven to be in the ledger.";
  });
})();
