import urllib.request


def test_daphne_serves_home_and_static(daphne_server):
    with urllib.request.urlopen(daphne_server.url + "/", timeout=30) as response:
        page = response.read().decode()
    assert response.status == 200
    assert "Tessera" in page
    with urllib.request.urlopen(daphne_server.url + "/static/css/site.css", timeout=30) as response:
        assert response.status == 200
        assert b"--bg" in response.read()


def test_created_user_can_log_in(daphne_server):
    daphne_server.create_user("smokeuser", "a-long-pass-phrase-42")
    out = daphne_server.shell(
        "from django.contrib.auth import authenticate;"
        "print(authenticate(username='SMOKEUSER', password='a-long-pass-phrase-42'))"
    )
    assert out.strip() == "smokeuser"
