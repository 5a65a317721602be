"""Every prompt template the toolkit shipped before its current one: file name → sha256 → the
commit that first shipped it (from ``git log`` of ``prompts/`` and ``gamemaster/bundled/prompts/``).

``doctor --fix`` replaces a workspace's template that is byte for byte one of these (it was never
edited). When a bundled template changes, the hash of the one it replaces belongs here;
``tests/test_doctor_templates.py`` checks this against the repository's history.
"""

from __future__ import annotations

SHIPPED: dict[str, dict[str, str]] = {
    "ask.md": {
        "d142b06854ae304c74c601d055302b4182f606b8f9e3ab5664de6473ab027265": "115c43d 2026-11-23",
    },
    "reflection.md": {
        "c50bfa485c533545d23c09d027daa250eb4ff62ab5e2f910e590aa012485cd27": "ec8fd28 2026-11-22",
    },
    "gathering.md": {
        "04f1da0a76de5c9fb4c9d32eba9f42f49e122ba532f0ead58ea07139c54e0b33": "b12dd6c 2026-11-25",
    },
    "event.md": {
        "524981e2797f271e232fb9a35a57d3667005949962444d487dcaa97b7e17eb8e": "58b7a5e 2026-11-23",
    },
    "arrival.md": {
        "5bdffca075b6a1863cd28367a5845fbf92f93c21990a78026d91ab2e4f0fd902": "b0edc8f 2026-11-25",
        "44782199b04575b461581f3f0db662486d8714cf1eace55cedaffeaaf1f037a4": "58b7a5e 2026-11-23",
        "98d41ee44ceb9cb575b4b2f80e647fb3e9314bce5380fbdb847a79361669f67d": "8ed63de 2026-11-23",
    },
    "character.md": {
        "bb3b1567eac1f670235d445c584d798d92f9a18975fdbf7907bca7baf5759397": "9dd7e8c 2026-11-27",
        "e6f76066738daa63bbb430aebf1a9ed08e588b0d5ff69ae4ae9c7d6f03bc1c9d": "a82738f 2026-11-26",
        "9c72a43dddd8df25a889dad6e7cacc467c05bdfc8280f1a32132ef4abba8968b": "6f22b01 2026-11-25",
        "3bcf69e0515424d7aade1410a9130157e7da327428776a9459920ac1e693e73e": "5ad35d3 2026-11-25",
        "a03f4f54d21f84d8be9f3e4db07584669621390d51becb8e0417264f641f3bea": "af3af06 2026-11-25",
        "19f9b14045d11068c2b23c8652aa5043530c7b7fcee65df604013f64b7e2173f": "b12dd6c 2026-11-25",
        "9157d75f9bed94ce02e1775da3629823b90f733f3e4c3c468e624b625f351fa3": "8ed63de 2026-11-23",
        "8326bdca5291c5df3642613cc109aeb3b057af4cec183156a4d50eed7075c15b": "dd5f9ad 2026-11-22",
        "0a2b9baa27e8377e7ddedbce8717f1869782d2ad43aa15c36a42275c71b4c965": "bd5c97b 2026-11-22",
        "64ef4abd977c50bba5350c47db0330cd78e8e54227fcf59747f40b74ddb01c4b": "ec8fd28 2026-11-22",
    },
    "contract.md": {
        "100b1c1273cb894d2fccb3fd5ff38a4400b95449370f576fc90709d17f84d4b7": "6af0899 2026-11-27",
        "1700dc456ef4444328cbcc613006bd136cd6478b59d6dfe0cc696b761d7428fd": "9dd7e8c 2026-11-27",
        "26651f2d056d96930a966a9f5b00b02a9b55e58ab8c5b3f23f651dc980e316bd": "6f22b01 2026-11-25",
        "831e56e0c97d074026dd12269a5c8ba1980ff065c787bac20aea7611cbc80944": "8a1b188 2026-11-25",
        "5102828c82290a9bb47152953e11b0b3e92322a564e86aca3bdd35436159bea3": "5ad35d3 2026-11-25",
        "b64078524800cf3fadb5eb0d0775e506899b7c93deb2cd14b37ddf307e17f447": "6c2b8fe 2026-11-25",
        "28988c16cb210094bac1428822f74875ce055df28852860a340d70c90d17b3ae": "b12dd6c 2026-11-25",
        "0f76b3184cca49d1bca04bb8f44bbeb1a5233df58eb5e6d6ebf1eaff4f3c87c2": "ec6869f 2026-11-23",
        "6d5b824becbdbd0acbf662cc2e531b46752927d587d222c023e4e68b7916b142": "8ed63de 2026-11-23",
        "a8b44c71f7321a9dad16958ed0c3724bdf11e854c9253a156592bea6e6091a4f": "ec8fd28 2026-11-22",
    },
    "encounter.md": {
        "d886546c2d3d83f3c695abc2664b4991efb8fd47283a6357db92a0bd69b74e1e": "ec6869f 2026-11-23",
    },
    "meeting.md": {
        "16898fa11ff7386f69b7cdbaf16f95debdc62a3d3dc3d8d929364913d64504d4": "8ed63de 2026-11-23",
    },
    "subagent.md": {
        "df102c74051b80eb89b67c74441046ac477a70d2f65639e808b33c066072351a": "505acb7 2026-11-22",
        "5cc92cf440c7ccd9e2de3275878dc1d3617087a46b3843b259dc998dc483547b": "e2860a1 2026-11-27",
    },
    "work.md": {
        "7e9ae97a5648683bfbc69f0e25da82e89eb6e6b412e4598b07786d7abd41dea2": "fad83ad 2026-11-23",
        "4b9007ea18fe5ccc85c016affa97122eb690293d6e2e5d671be3d51bbf3755b8": "8ed63de 2026-11-23",
    },
}
