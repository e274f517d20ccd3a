// POSTs to the site's own actions (lobby forms, challenge answers) with fetch, answered in JSON.

export function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

// Resolves to {response, data}; rejects when the server cannot be reached or does not answer
// in JSON, which callers report as "try again".
export async function postForJson(url, body = undefined) {
  const response = await fetch(url, {
    method: "POST",
    body,
    headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    credentials: "same-origin",
  });
  const data = await response.json();
  return { response, data };
}
