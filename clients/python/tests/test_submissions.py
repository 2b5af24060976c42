"""submit_job() with a working directory, as `corral jobs run` submits
one; the submission's log read and followed."""

from __future__ import annotations

import base64
import io
import json
import os
import tempfile
import unittest
import zipfile

import corral

from .fake_corral import FakeCorral, Request, Stream
from .support import client_of

SUBMISSIONS = "/apis/v1alpha2/namespaces/default/jobsubmissions/blue"
PROBE = "/apis/v1alpha2/namespaces/default/clusters/blue/dashboard/api/packages/gcs/"


class SubmitTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCorral().__enter__()
        self.addCleanup(self.fake.__exit__)
        self.client = client_of(self.fake)
        self.addCleanup(self.client.close)
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.dir = directory.name
        files = {
            "train.py": "print('hi')\n",
            "data/small.csv": "a,b\n",
            "data/big.bin": "x" * 100,
            ".gitignore": "*.bin\n",
            ".git/HEAD": "ref: refs/heads/main\n",
        }
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(self.dir, path)), exist_ok=True)
            with open(os.path.join(self.dir, path), "w", encoding="utf-8") as file:
                file.write(text)
        self.fake.answers("POST", SUBMISSIONS, (200, {"submissionId": "raysubmit_1"}))

    def test_the_working_directory_is_zipped_uploaded_and_named_in_the_runtime_env(self) -> None:
        package = corral.package_directory(self.dir)
        self.fake.answers("PUT", f"{SUBMISSIONS}/packages/{package.name}", (200, {}))
        submission = self.client.submit_job("blue", "python train.py", working_dir=self.dir, metadata={"team": "a"})
        self.assertEqual(submission, "raysubmit_1")
        upload = self.request("PUT")
        archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(upload.body["content"])))
        self.assertEqual(sorted(archive.namelist()), [".gitignore", "data/small.csv", "train.py"])
        submit = self.request("POST")
        self.assertEqual(submit.body["entrypoint"], "python train.py")
        self.assertEqual(json.loads(submit.body["runtimeEnv"]), {"working_dir": package.uri})
        self.assertEqual(submit.body["metadata"], {"team": "a"})

    def test_a_package_the_cluster_has_already_is_not_uploaded_again(self) -> None:
        package = corral.package_directory(self.dir)
        self.fake.answers("GET", PROBE + package.name, (200, b"zip bytes"))
        self.client.submit_job("blue", "python train.py", working_dir=self.dir)
        self.assertEqual([r.method for r in self.fake.requests], ["GET", "POST"])

    def test_the_same_files_make_the_same_package_name(self) -> None:
        first = corral.package_directory(self.dir)
        os.utime(os.path.join(self.dir, "train.py"), (0, 0))
        self.assertEqual(corral.package_directory(self.dir).name, first.name)
        self.assertRegex(first.name, r"^_ray_pkg_[0-9a-f]{32}\.zip$")

    def test_a_working_dir_given_twice_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.client.submit_job("blue", "python train.py", working_dir=self.dir, runtime_env={"working_dir": "gcs://x"})

    def request(self, method: str) -> Request:
        return next(r for r in self.fake.requests if r.method == method)


class LogTest(unittest.TestCase):
    def test_a_followed_log_resumed_by_a_new_stream_repeats_nothing(self) -> None:
        watch = "/apis/v1alpha2/watch/namespaces/default/jobsubmissions/blue/log/raysubmit_1"
        with FakeCorral() as fake, client_of(fake) as client:
            fake.answers(
                "GET", watch,
                (200, Stream([{"result": {"log": "one\n", "status": "RUNNING"}}, {"result": {"log": "two\n"}}])),
                # A new stream starts with the whole log so far.
                (200, Stream([{"result": {"log": "one\ntwo\nthree\n", "status": "RUNNING"}},
                              {"result": {"log": "", "status": "SUCCEEDED"}}])),
            )
            self.assertEqual("".join(client.follow_submission_log("blue", "raysubmit_1")), "one\ntwo\nthree\n")

    def test_the_log_so_far_is_one_string(self) -> None:
        with FakeCorral() as fake, client_of(fake) as client:
            fake.answers("GET", f"{SUBMISSIONS}/log/raysubmit_1", (200, {"log": "hello\n"}))
            self.assertEqual(client.submission_log("blue", "raysubmit_1"), "hello\n")


JOB = "/apis/v1alpha2/namespaces/default/jobs/train"


class JobLogTest(unittest.TestCase):
    def test_a_rayjobs_log_so_far_and_its_last_lines(self) -> None:
        with FakeCorral() as fake, client_of(fake) as client:
            fake.answers("GET", f"{JOB}/log", (200, {"log": "one\ntwo\n"}))
            self.assertEqual(client.job_log("train"), "one\ntwo\n")
            client.job_log("train", tail_lines=1)
            self.assertEqual(fake.requests[-1].query, {"tailLines": "1"})

    def test_a_followed_rayjob_log_resumed_repeats_nothing_and_ends_with_the_job(self) -> None:
        watch = "/apis/v1alpha2/watch/namespaces/default/jobs/train/log"
        with FakeCorral() as fake, client_of(fake) as client:
            fake.answers(
                "GET", watch,
                (200, Stream([{"result": {"log": "one\n"}}, {"result": {"log": "two\n"}}])),
                # Ended early by Corral; a new stream starts with the whole log.
                (200, Stream([{"result": {"log": "one\ntwo\nthree\n"}}])),
            )
            fake.answers("GET", JOB, (200, {"name": "train", "jobStatus": "RUNNING"}),
                         (200, {"name": "train", "jobStatus": "SUCCEEDED"}))
            self.assertEqual("".join(client.follow_job_log("train")), "one\ntwo\nthree\n")


if __name__ == "__main__":
    unittest.main()
